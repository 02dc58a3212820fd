internal import CCups
public import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Writing output where the user said, without destroying what is there:
/// - a regular file (or a new one) is replaced atomically and durably: a temporary file in the
///   same directory, fsynced, renamed over the target, then the directory fsynced — after a
///   crash the old file or the whole new one is there, never a torn one;
/// - anything else (a printer device such as `/dev/usb/lp0`, a FIFO, a symlink's target) is
///   written in place, as `cat > path` would: renaming over a device node would destroy it and
///   print nothing;
/// - standard output is written with every error reported.
/// Every failure is ``PrintError/output(_:)`` in one line (the CLI's exit 73). The directory
/// printer writes its files with it; a device printer will write in place through it.
public enum DurableFile {
  /// Writes `data` to `path` (see above). Without `durable`, a regular file is still replaced
  /// atomically but not fsynced: a batch of thousands syncs its directory's file system once
  /// at the end (``syncFileSystem(of:)``) instead of twice a file.
  /// With `regularOnly`, anything but a regular file at `path` is refused (batches: the file is
  /// then made anew in a temporary file and renamed over the name, never written through a
  /// link or into a FIFO someone placed there).
  public static func write(_ data: Data, to path: String, durable: Bool = true, regularOnly: Bool = false) throws {
    var info = stat()
    if lstat(path, &info) == 0, info.st_mode & S_IFMT != S_IFREG {
      guard !regularOnly else {
        throw PrintError.output(
          "\(path) is \(kind(info.st_mode)), not a regular file; remove it or render to another directory")
      }
      try writeInPlace(data, to: path)
    } else {
      try replace(path, with: data, durable: durable)
    }
  }

  /// What a file of mode `mode` is, for a message.
  private static func kind(_ mode: mode_t) -> String {
    switch mode & S_IFMT {
    case S_IFLNK: "a symbolic link"
    case S_IFIFO: "a FIFO"
    case S_IFDIR: "a directory"
    case S_IFCHR, S_IFBLK: "a device"
    case S_IFSOCK: "a socket"
    default: "not a regular file"
    }
  }

  /// Flushes everything written to the file system `path` is on (syncfs(2)).
  public static func syncFileSystem(of path: String) throws {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw failure(path) }
    defer { close(fd) }
    guard receipt_syncfs(fd) == 0 else { throw failure(path) }
  }

  /// Writes `data` to standard output.
  public static func writeStandardOutput(_ data: Data) throws {
    try writeAll(data, to: STDOUT_FILENO, name: "standard output")
  }

  private static func writeInPlace(_ data: Data, to path: String) throws {
    let fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY)
    guard fd >= 0 else { throw failure(path) }
    defer { close(fd) }
    try writeAll(data, to: fd, name: path)
  }

  /// The process's file mode mask, read once: reading it means setting it, and setting it to
  /// 0 for a moment on every file let another thread create a file with no mask at all.
  private static let processUmask: mode_t = {
    let mask = umask(0)
    umask(mask)
    return mask
  }()

  private static func replace(_ path: String, with data: Data, durable: Bool) throws {
    // Path strings, not URLs: a file URL made from a path stats it (is it a directory?), a
    // system call a file in a batch of thousands.
    let slash = path.lastIndex(of: "/")
    let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
    let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
    var template = Array((directory + "/.\(name).XXXXXX").utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    guard fd >= 0 else { throw failure(path) }
    let temporary = String(cString: template)
    var done = false
    defer {
      if !done { unlink(temporary) }
    }
    do {
      defer { close(fd) }
      try writeAll(data, to: fd, name: path)
      // mkstemp makes 0600; a receipt file is as readable as any other new file.
      fchmod(fd, 0o666 & ~processUmask)
      guard !durable || fsync(fd) == 0 else { throw failure(path) }
    }
    guard rename(temporary, path) == 0 else { throw failure(path) }
    done = true
    guard durable else { return }
    let directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if directoryFD >= 0 {
      defer { close(directoryFD) }
      guard fsync(directoryFD) == 0 else { throw failure(directory) }
    }
  }

  private static func writeAll(_ data: Data, to fd: Int32, name: String) throws {
    try data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
      var offset = 0
      while offset < bytes.count {
        let n = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
        if n < 0 {
          if errno == EINTR { continue }
          throw failure(name)
        }
        offset += n
      }
    }
  }

  private static func failure(_ path: String) -> PrintError {
    PrintError.output("cannot write \(path): \(String(cString: strerror(errno)))")
  }
}
