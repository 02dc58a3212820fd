import Foundation
import ReceiptTestSupport
import Testing

/// The test suites clean up after processes that could not (`Scratch`): a day of runs that left
/// their PostgreSQL clusters behind once filled the disk. The sweep removes the directory of a
/// process that is gone — after its daemons' watchdogs have stopped — and nothing else.
@Suite struct ScratchTests {
  /// A process that has ended, and its id.
  private func endedProcessID() throws -> Int32 {
    let process = try ChildProcess("/bin/true", [])
    process.wait()
    return process.pid
  }

  @Test func theDirectoryOfAProcessThatIsGoneIsRemovedAndNoOther() throws {
    let parent = try Scratch.directory("sweep")
    let running = try ChildProcess("/bin/sleep", ["30"])
    defer {
      running.send(SIGKILL)
      running.wait()
    }
    let gone = try endedProcessID()
    let names = [
      "receipt-test-\(gone)", "receipt-test-\(running.pid)", "receipt-test-\(getpid())",
      "receipt-test-notes", "other-\(gone)",
    ]
    for name in names {
      try FileManager.default.createDirectory(
        at: parent.appendingPathComponent("\(name)/pg-1/data"), withIntermediateDirectories: true)
    }
    Scratch.sweep(in: parent.path)
    let left = Set(try FileManager.default.contentsOfDirectory(atPath: parent.path))
    #expect(left == Set(names.dropFirst()))
  }

  /// A gone process's daemons are stopped by watchdogs polling `kill -0 PID`: its directory
  /// (their data) is removed only once no such watchdog runs.
  @Test func theSweepWaitsForTheWatchdogsOfAProcessThatIsGone() throws {
    let parent = try Scratch.directory("sweep")
    let gone = try endedProcessID()
    try FileManager.default.createDirectory(
      at: parent.appendingPathComponent("receipt-test-\(gone)"), withIntermediateDirectories: true)
    // A stand-in watchdog: its command line names the process as the real ones do.
    let watchdog = try ChildProcess("/bin/sh", ["-c", "sleep 1; : kill -0 \(gone) ; true"])
    let start = Date()
    Scratch.sweep(in: parent.path)
    let waited = Date().timeIntervalSince(start)
    #expect(!watchdog.isRunning)
    #expect(waited >= 0.5)
    #expect(try FileManager.default.contentsOfDirectory(atPath: parent.path).isEmpty)
    watchdog.wait()
  }
}
