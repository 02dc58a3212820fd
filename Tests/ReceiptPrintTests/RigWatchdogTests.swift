import Foundation
import ReceiptTestSupport
import Testing

/// The print rig's watchdog stops all a daemon left running when the test process is gone: once,
/// cupsd's backends (each in a process group of its own, as cupsd starts them) outlived a cupsd
/// killed with a job in hand, two or three each `make test`, retrying printers whose ports later
/// tests could own.
@Suite struct RigWatchdogTests {
  /// A daemon that ignores SIGTERM (as the rig's daemons inherit) and has a child in a process
  /// group of its own (as cupsd's backends are); its owner is a process the test ends once the
  /// child runs (an owner that ended by itself after a second was gone before a loaded machine's
  /// Python had forked the child, CI 2026-12-02).
  @Test func aDaemonsChildrenInGroupsOfTheirOwnGoWithIt() throws {
    let marker = "\(70_000_000 + Int.random(in: 0..<9_999_999))"
    let daemon = """
      import os, signal, time
      signal.signal(signal.SIGTERM, signal.SIG_IGN)
      if os.fork() == 0:
          os.setpgid(0, 0)
          os.execvp("sleep", ["sleep", "\(marker)"])
      time.sleep(600)
      """
    let owner = try ChildProcess("/bin/sleep", ["120"])
    // Output to /dev/null, not the test's: a child left running would hold it open.
    let watchdog = try ChildProcess(
      "/usr/bin/setsid", ["/bin/sh", "-c", PrintRig.watchdog(owner: owner.pid), "/usr/bin/python3", "-c", daemon],
      ownGroup: false)
    func running() throws -> Bool { try Tool.run("pgrep", ["-f", "^sleep \(marker)$"]).status == 0 }
    let deadline = Date().addingTimeInterval(10)
    while try !running(), Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
    #expect(try running(), "the daemon's child started")
    owner.send(SIGTERM)
    owner.wait()
    // The watchdog's stop (the daemon killed and reaped) ends it.
    #expect(watchdog.wait(seconds: 15) != nil, "the watchdog stopped once its owner was gone")
    var left = try running()
    for _ in 0..<20 where left {
      Thread.sleep(forTimeInterval: 0.1)
      left = try running()
    }
    if left { _ = try? Tool.run("pkill", ["-9", "-f", "^sleep \(marker)$"]) }
    #expect(!left, "the daemon's child outlived it and its watchdog")
    watchdog.wait()
  }
}
