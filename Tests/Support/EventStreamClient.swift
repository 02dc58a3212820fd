import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A client of the daemon's `GET /v1/events` on a plain socket: it de-chunks the response and
/// parses Server-Sent Events as a browser's EventSource does (id, event, data; comments skipped).
public final class EventStreamClient: @unchecked Sendable {
  /// One parsed event.
  public struct Event: Sendable {
    public var id: String?
    public var type: String
    public var data: String
    /// `data` as a JSON object.
    public var json: [String: Any] {
      (try? JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any]) ?? [:]
    }
  }

  private let connection: RawConnection
  private var raw = Data()
  private var headerDone = false
  private var text = ""
  /// The status line and headers.
  public private(set) var head = ""
  /// Every event so far, in arrival order.
  public private(set) var events: [Event] = []
  /// Whether the daemon closed the connection.
  public private(set) var closed = false
  /// Keep-alive comments seen.
  public private(set) var comments = 0

  /// Connects and sends the request (with `Last-Event-ID` and a bearer token when given).
  public init(port: Int, lastEventID: String? = nil, token: String? = nil) throws {
    connection = try RawConnection(port: port)
    var request = "GET /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
    if let lastEventID { request += "Last-Event-ID: \(lastEventID)\r\n" }
    if let token { request += "Authorization: Bearer \(token)\r\n" }
    try connection.send(request + "\r\n")
  }

  /// Reads until `done` holds for the events so far, the peer closes, or `timeout` passes;
  /// returns whether `done` held.
  @discardableResult
  public func read(timeout: TimeInterval, until done: ([Event]) -> Bool) -> Bool {
    var tv = timeval(tv_sec: 0, tv_usec: 100_000)
    setsockopt(connection.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    var buffer = [UInt8](repeating: 0, count: 65536)
    let deadline = Date().addingTimeInterval(timeout)
    while !done(events), Date() < deadline {
      let n = recv(connection.fd, &buffer, buffer.count, 0)
      if n > 0 {
        raw.append(contentsOf: buffer[0..<n])
        parse()
      } else if n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        closed = true
        break
      }
    }
    return done(events)
  }

  private func parse() {
    if !headerDone {
      guard let end = raw.range(of: Data("\r\n\r\n".utf8)) else { return }
      head = String(decoding: raw[raw.startIndex..<end.lowerBound], as: UTF8.self)
      raw = Data(raw[end.upperBound...])
      headerDone = true
    }
    // Chunked transfer coding: "<hex size>\r\n<bytes>\r\n".
    while let line = raw.range(of: Data("\r\n".utf8)) {
      let sizeText = String(decoding: raw[raw.startIndex..<line.lowerBound], as: UTF8.self)
      guard let size = Int(sizeText.split(separator: ";").first ?? "", radix: 16) else { return }
      let start = line.upperBound
      guard raw.distance(from: start, to: raw.endIndex) >= size + 2 else { return }
      let chunkEnd = raw.index(start, offsetBy: size)
      text += String(decoding: raw[start..<chunkEnd], as: UTF8.self)
      raw = Data(raw[raw.index(chunkEnd, offsetBy: 2)...])
    }
    while let end = text.range(of: "\n\n") {
      let block = String(text[text.startIndex..<end.lowerBound])
      text = String(text[end.upperBound...])
      var event = Event(id: nil, type: "message", data: "")
      var hasData = false
      for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
        if line.hasPrefix(":") {
          comments += 1
          continue
        }
        let parts = line.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let field = String(parts[0])
        var value = parts.count > 1 ? String(parts[1]) : ""
        if value.hasPrefix(" ") { value.removeFirst() }
        switch field {
        case "id": event.id = value
        case "event": event.type = value
        case "data":
          event.data += hasData ? "\n" + value : value
          hasData = true
        default: break
        }
      }
      if hasData { events.append(event) }
    }
  }
}
