import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A plain TCP client for HTTP tests that need what URLSession will not do: any `Host`
/// header, half-sent requests, many idle connections.
public final class RawConnection: @unchecked Sendable {
  public let fd: Int32

  /// Connects to 127.0.0.1:`port`.
  public init(port: Int) throws {
    fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw RigError("socket: \(String(cString: strerror(errno)))") }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else {
      close(fd)
      throw RigError("connect to \(port): \(String(cString: strerror(errno)))")
    }
  }

  deinit { close(fd) }

  /// Sends text as it is.
  public func send(_ text: String) throws {
    let bytes = Array(text.utf8)
    guard Glibc.send(fd, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else {
      throw RigError("send: \(String(cString: strerror(errno)))")
    }
  }

  /// Reads until the peer closes or `timeout` passes; returns what arrived and whether the peer
  /// closed the connection.
  public func readUntilClosed(timeout: TimeInterval) -> (data: Data, closed: Bool) {
    var tv = timeval(tv_sec: 0, tv_usec: 100_000)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 65536)
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      let n = recv(fd, &buffer, buffer.count, 0)
      if n > 0 {
        data.append(contentsOf: buffer[0..<n])
      } else if n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        return (data, true)
      }
    }
    return (data, false)
  }

  /// Whether the peer has closed the connection, looked at without waiting (MSG_PEEK: nothing is
  /// consumed).
  public var isClosedByPeer: Bool {
    var byte: UInt8 = 0
    let n = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
    return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
  }

  /// Sends one request and reads the answer (the connection is closed by `Connection: close`).
  public static func request(port: Int, _ text: String, timeout: TimeInterval = 10) throws -> String {
    let connection = try RawConnection(port: port)
    try connection.send(text)
    return String(decoding: connection.readUntilClosed(timeout: timeout).data, as: UTF8.self)
  }

  /// POSTs a JSON body to `path` and reads the answer.
  public static func post(port: Int, _ path: String, _ body: String, timeout: TimeInterval = 30) throws -> String {
    try request(
      port: port,
      "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nConnection: close\r\n"
        + "Content-Length: \(body.utf8.count)\r\n\r\n" + body, timeout: timeout)
  }
}

/// Runs blocking work (sockets, processes, sleeps) on its own thread, not on Swift's
/// concurrency pool, whose few threads also serve the daemon under test.
public func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
  try await withCheckedThrowingContinuation { continuation in
    Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
  }
}

/// One HTTP/1.1 exchange on a connection of its own (`Connection: close`), for clients that must
/// see every answer as it is — URLSession on Linux handles a `401` with `WWW-Authenticate`
/// itself and may never hand it back.
public enum RawHTTP {
  /// An answer: its status, headers (names lower-cased; repeated ones joined with ", ") and body.
  public struct Answer: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: Data
  }

  public static func exchange(
    port: Int, _ method: String, _ path: String, headers: [String: String] = [:], body: Data = Data(),
    timeout: TimeInterval = 10
  ) throws -> Answer {
    let connection = try RawConnection(port: port)
    var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
    for (name, value) in headers { head += "\(name): \(value)\r\n" }
    head += "Content-Length: \(body.count)\r\n\r\n"
    var request = Data(head.utf8)
    request += body
    var sent = 0
    while sent < request.count {
      let n = request.withUnsafeBytes {
        Glibc.send(connection.fd, $0.baseAddress! + sent, request.count - sent, Int32(MSG_NOSIGNAL))
      }
      guard n > 0 else { throw RigError("send: \(String(cString: strerror(errno)))") }
      sent += n
    }
    let data = connection.readUntilClosed(timeout: timeout).data
    guard let end = data.firstRange(of: Data("\r\n\r\n".utf8)) else { throw RigError("no HTTP answer") }
    let lines = String(decoding: data[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
    guard let status = lines.first?.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else {
      throw RigError("no status line: \(lines.first ?? "")")
    }
    var fields: [String: String] = [:]
    for line in lines.dropFirst() {
      guard let colon = line.firstIndex(of: ":") else { continue }
      let name = line[..<colon].lowercased()
      let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
      fields[name] = fields[name].map { $0 + ", " + value } ?? value
    }
    var content = Data(data[end.upperBound...])
    if let length = fields["content-length"].flatMap(Int.init), content.count > length {
      content = content.prefix(length)
    }
    return Answer(status: status, headers: fields, body: content)
  }
}
