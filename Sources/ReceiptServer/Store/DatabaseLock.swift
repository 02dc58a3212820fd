import Foundation
import ReceiptKit

#if canImport(Glibc)
  import Glibc
#endif

/// One daemon per SQLite queue: an exclusive `flock` on `<database>.lock`, held while the
/// daemon runs (the kernel drops it when the process dies, `kill -9` included). A second daemon
/// on the same file would requeue and reprint the first one's jobs in hand.
final class DatabaseLock {
  private let descriptor: Int32
  let path: String

  /// Takes the lock or throws a one-line error naming the process that holds it.
  init(database: String) throws {
    path = database + ".lock"
    let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    guard fd >= 0 else {
      throw ReceiptError(.unavailable, "cannot open \(path): \(String(cString: strerror(errno)))")
    }
    guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
      var buffer = [UInt8](repeating: 0, count: 32)
      let n = pread(fd, &buffer, buffer.count, 0)
      close(fd)
      let pid =
        n > 0 ? String(decoding: buffer[0..<n], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) : "?"
      throw ReceiptError(
        .unavailable,
        "another receipt serve (pid \(pid)) is using \(database); stop it, or give this one its own --db file")
    }
    let pid = Array("\(getpid())\n".utf8)
    _ = ftruncate(fd, 0)
    _ = pwrite(fd, pid, pid.count, 0)
    descriptor = fd
  }

  deinit {
    flock(descriptor, LOCK_UN)
    close(descriptor)
  }
}
