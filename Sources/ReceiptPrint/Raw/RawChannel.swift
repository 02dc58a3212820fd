import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// An open two-way connection to a raw printer — a TCP socket or a device (USB printer class,
/// serial line) — in non-blocking mode. Owns its file descriptor and closes it in `deinit`.
final class RawChannel {
  let fd: Int32
  /// The printer's name, for messages.
  let name: String

  /// Takes ownership of `fd` and makes it non-blocking.
  init(fd: Int32, name: String) {
    self.fd = fd
    self.name = name
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
  }

  deinit { close(fd) }

  /// Writes every byte by `deadline`, handing what the printer sends meanwhile to `received`
  /// (which may throw to stop: the printer said it cannot print).
  func write(_ data: Data, deadline: Date, received: ([UInt8]) throws -> Void) throws {
    try data.withUnsafeBytes { bytes in
      var offset = 0
      while offset < bytes.count {
        let left = deadline.timeIntervalSinceNow
        guard left > 0 else {
          throw PrintError.output(
            "printer \(name) took \(offset) of \(bytes.count) bytes and then nothing more; is it on and has it paper?")
        }
        var pfd = pollfd(fd: fd, events: Int16(POLLOUT | POLLIN), revents: 0)
        guard poll(&pfd, 1, Int32(min(left, 1) * 1000)) > 0 else { continue }
        if pfd.revents & Int16(POLLIN) != 0, let input = try readAvailable() { try received(input) }
        guard pfd.revents & Int16(POLLOUT | POLLERR | POLLHUP) != 0 else { continue }
        let n = Glibc.send(fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
        let sent = n < 0 && errno == ENOTSOCK ? Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset) : n
        if sent > 0 {
          offset += sent
        } else if sent < 0, errno != EAGAIN, errno != EINTR {
          throw PrintError.output("printer \(name) stopped taking data: \(String(cString: strerror(errno)))")
        }
      }
    }
  }

  /// Waits up to `timeout` for bytes from the printer: nil when none came. Throws when the
  /// printer closed the connection.
  func read(timeout: TimeInterval) throws -> [UInt8]? {
    var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    guard poll(&pfd, 1, Int32(max(0, timeout) * 1000)) > 0 else { return nil }
    return try readAvailable()
  }

  /// What can be read now (nil: nothing yet).
  private func readAvailable() throws -> [UInt8]? {
    var buffer = [UInt8](repeating: 0, count: 4096)
    let n = Glibc.read(fd, &buffer, buffer.count)
    if n > 0 { return Array(buffer[0..<n]) }
    if n < 0, errno == EAGAIN || errno == EINTR { return nil }
    throw PrintError.notConfirmed(
      "printer \(name) closed the connection" + (n < 0 ? ": \(String(cString: strerror(errno)))" : ""))
  }
}
