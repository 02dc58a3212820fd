import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Loopback TCP listening sockets for the test stand-ins (printers, slow clients' servers).
public enum Loopback {
  /// A socket listening on 127.0.0.1 (`port` 0: a free one of this process's ``TestPorts``), and
  /// its port.
  public static func listen(port requested: UInt16 = 0, receiveBuffer: Int32? = nil) throws -> (
    fd: Int32, port: UInt16
  ) {
    guard requested == 0 else { return try listenOn(requested, receiveBuffer: receiveBuffer) }
    return try TestPorts.take { port in try? listenOn(port, receiveBuffer: receiveBuffer, reuse: false) }
  }

  static func listenOn(_ requested: UInt16, receiveBuffer: Int32?, reuse allowed: Bool = true) throws -> (
    fd: Int32, port: UInt16
  ) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var reuse: Int32 = 1
    if allowed { setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size)) }
    if var size = receiveBuffer { setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = requested.bigEndian
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    try withUnsafeMutablePointer(to: &address) { pointer in
      try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        guard bind(fd, $0, length) == 0, getsockname(fd, $0, &length) == 0, Glibc.listen(fd, 8) == 0 else {
          close(fd)
          throw RigError("cannot listen on loopback")
        }
      }
    }
    return (fd, UInt16(bigEndian: address.sin_port))
  }

  /// Sends every byte on a blocking socket; false when the peer is gone.
  public static func send(_ fd: Int32, _ data: Data) -> Bool {
    data.withUnsafeBytes { raw in
      var offset = 0
      while offset < raw.count {
        let n = Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
        if n < 0, errno == EINTR { continue }
        guard n > 0 else { return false }
        offset += n
      }
      return true
    }
  }

  /// A connected socket to 127.0.0.1:`port`.
  public static func connect(port: UInt16) throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = port.bigEndian
    let connected = withUnsafePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
      }
    }
    guard connected else {
      close(fd)
      throw RigError("cannot connect to 127.0.0.1:\(port)")
    }
    return fd
  }
}
