import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A broken raw printer on loopback: from the moment a client connects it sends `37h` bytes as
/// fast as the client takes them (the byte that starts every ESC/POS response, never followed by
/// the NUL that ends one) and reads whatever it is sent. What the client costs meanwhile, and
/// how it gives up, is the test's concern.
public final class FloodPrinter: @unchecked Sendable {
  public let port: UInt16
  private let listener: Int32

  /// Starts listening.
  public init() throws {
    (listener, port) = try Loopback.listen()
    let fd = listener
    Thread.detachNewThread {
      while true {
        let client = accept(fd, nil, nil)
        guard client >= 0 else { return }
        Thread.detachNewThread { Self.flood(client) }
      }
    }
  }

  deinit {
    shutdown(listener, Int32(SHUT_RDWR))
    close(listener)
  }

  /// Floods one client until it hangs up (at most two minutes: the test is long over by then).
  private static func flood(_ client: Int32) {
    defer { close(client) }
    let flood = [UInt8](repeating: 0x37, count: 65536)
    var sink = [UInt8](repeating: 0, count: 65536)
    let end = Date().addingTimeInterval(120)
    while Date() < end {
      var pfd = pollfd(fd: client, events: Int16(POLLOUT | POLLIN), revents: 0)
      guard poll(&pfd, 1, 100) >= 0 else { return }
      if pfd.revents & Int16(POLLIN) != 0, read(client, &sink, sink.count) <= 0 { return }
      if pfd.revents & Int16(POLLOUT) != 0,
        flood.withUnsafeBytes({ send(client, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }) < 0,
        errno != EAGAIN
      {
        return
      }
      if pfd.revents & Int16(POLLHUP | POLLERR) != 0 { return }
    }
  }
}
