import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Where a test process writes its files: one directory, `receipt-test-PID` in the temporary
/// directory (`$TMPDIR`, which `scripts/run-tests.sh` points into its run's directory; else
/// `/tmp`), holding every temporary directory, PostgreSQL cluster and private cupsd of the process.
///
/// Test processes do not always get to clean up (a crash, a `fatalError`, a CI timeout), and a
/// PostgreSQL cluster that has run the daemon suites holds ~450 MB of write-ahead log: left
/// behind, a day of runs filled the disk. So the first use in each process removes the
/// directories of earlier processes that are gone, once their daemons' watchdogs (which poll
/// `kill -0 PID`) have stopped them. What one run leaves stays until the next run starts, for
/// reading after a failure.
public enum Scratch {
  private static let prefix = "receipt-test-"
  private static let parent = FileManager.default.temporaryDirectory.path

  /// This process's directory, created (and earlier processes' swept) on first use.
  public static let root: URL = {
    sweep()
    let url = URL(fileURLWithPath: "\(parent)/\(prefix)\(getpid())")
    try? FileManager.default.removeItem(at: url)  // a process of the same id long ago
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }()

  /// A new directory under ``root`` whose name starts with `label`.
  public static func directory(_ label: String) throws -> URL {
    let url = root.appendingPathComponent("\(label)-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }

  /// Removes `receipt-test-PID` of every process that is gone, after waiting (at most 5 s
  /// each) for the watchdogs that stop its daemons, in the temporary directory (or in
  /// `directory`: `ScratchTests`).
  public static func sweep(in directory: String? = nil) {
    let parent = directory ?? parent
    for name in (try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? [] where name.hasPrefix(prefix) {
      guard let pid = Int32(name.dropFirst(prefix.count)), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH
      else { continue }
      let deadline = Date().addingTimeInterval(5)
      while Date() < deadline, (try? Tool.run("pgrep", ["-f", "kill -0 \(pid) "]).status) == 0 {
        Thread.sleep(forTimeInterval: 0.1)
      }
      try? FileManager.default.removeItem(atPath: "\(parent)/\(name)")
    }
  }
}
