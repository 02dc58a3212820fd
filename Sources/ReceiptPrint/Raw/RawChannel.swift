import Foundation
import ReceiptModel

#if canImport(Glibc)
  import Glibc
#endif

/// An open two-way connection to a raw printer — a TCP socket or a device (USB printer class,
/// serial line) — in non-blocking mode. Owns its file descriptor and closes it in `deinit`.
final class RawChannel {
  let fd: Int32
  /// The printer's name, for messages.
  let name: String
  /// Bytes read in the current window of ``readWindow`` seconds, and when it began: a printer
  /// sends a few status bytes a second, so one that floods the channel is read no faster than
  /// ``maxReadBytesPerWindow`` per window (the kernel's buffers then hold it back) instead of
  /// costing a core for as long as the wait lasts.
  private var windowBytes = 0
  private var windowStart = Date()
  static let readWindow: TimeInterval = 0.1
  static let maxReadBytesPerWindow = 4096

  /// Takes ownership of `fd` and makes it non-blocking.
  init(fd: Int32, name: String) {
    self.fd = fd
    self.name = name
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
  }

  deinit { close(fd) }

  /// How long a wait for the printer lasts at most before the caller's `shouldStop` is asked
  /// again: a daemon's stop gives a raw print up within its grace and this.
  static let stopCheckInterval: TimeInterval = 0.25

  /// Writes every byte by `deadline`, handing what the printer sends meanwhile to `received`
  /// (which may throw to stop: the printer said it cannot print). `shouldStop` is asked at least
  /// every ``stopCheckInterval``: true gives up with ``PrintError/abandoned(_:)``.
  func write(
    _ data: Data, deadline: Date, received: ([UInt8]) throws -> Void, shouldStop: (@Sendable () -> Bool)? = nil
  ) throws {
    try data.withUnsafeBytes { bytes in
      var offset = 0
      while offset < bytes.count {
        if shouldStop?() == true {
          throw PrintError.abandoned(
            "sending to printer \(name) was given up after \(offset) of \(bytes.count) bytes; whether it printed is unknown"
          )
        }
        let left = deadline.timeIntervalSinceNow
        guard left > 0 else {
          throw PrintError.output(
            "printer \(name) took \(offset) of \(bytes.count) bytes and then nothing more; is it on and has it paper?")
        }
        let reading = readAllowedIn() == 0
        var pfd = pollfd(fd: fd, events: Int16(reading ? POLLOUT | POLLIN : POLLOUT), revents: 0)
        let wait = min(left, Self.stopCheckInterval, reading ? .infinity : readAllowedIn())
        guard poll(&pfd, 1, Int32(clamping: (wait * 1000).clampedInt(.up, in: 0...Int(Int32.max)))) > 0 else {
          continue
        }
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
    let throttled = readAllowedIn()
    if throttled > 0 {
      guard timeout > throttled else {
        usleep(useconds_t(max(0, timeout) * 1_000_000))
        return nil
      }
      usleep(useconds_t(throttled * 1_000_000))
    }
    var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    guard poll(&pfd, 1, Int32(max(0, timeout - throttled) * 1000)) > 0 else { return nil }
    return try readAvailable()
  }

  /// Seconds until the channel may be read again (0: now).
  private func readAllowedIn() -> TimeInterval {
    let elapsed = Date().timeIntervalSince(windowStart)
    if elapsed >= Self.readWindow {
      windowStart = Date()
      windowBytes = 0
      return 0
    }
    return windowBytes < Self.maxReadBytesPerWindow ? 0 : Self.readWindow - elapsed
  }

  /// What can be read now (nil: nothing yet), at most what the window has left.
  private func readAvailable() throws -> [UInt8]? {
    var buffer = [UInt8](repeating: 0, count: max(1, Self.maxReadBytesPerWindow - windowBytes))
    let n = Glibc.read(fd, &buffer, buffer.count)
    if n > 0 {
      windowBytes += n
      return Array(buffer[0..<n])
    }
    if n < 0, errno == EAGAIN || errno == EINTR { return nil }
    throw PrintError.notConfirmed(
      "printer \(name) closed the connection" + (n < 0 ? ": \(String(cString: strerror(errno)))" : ""))
  }
}
