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
    let owner = Process()
    owner.executableURL = URL(fileURLWithPath: "/bin/sleep")
    owner.arguments = ["120"]
    try owner.run()
    let watchdog = Process()
    watchdog.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
    watchdog.arguments = [
      "/bin/sh", "-c", PrintRig.watchdog(owner: owner.processIdentifier), "/usr/bin/python3", "-c", daemon,
    ]
    // Not the test's output: a child left running would hold it open.
    watchdog.standardOutput = FileHandle.nullDevice
    watchdog.standardError = FileHandle.nullDevice
    try watchdog.run()
    func running() throws -> Bool { try Tool.run("pgrep", ["-f", "^sleep \(marker)$"]).status == 0 }
    let deadline = Date().addingTimeInterval(10)
    while try !running(), Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
    #expect(try running(), "the daemon's child started")
    owner.terminate()
    owner.waitUntilExit()
    // The watchdog's stop (the daemon killed and reaped) ends it. Not `waitUntilExit`: Foundation
    // learns that a child ended when the socket the child inherited closes, and a grandchild
    // left running holds it open — the red case would hang instead of failing.
    func ended(_ pid: Int32) -> Bool {
      guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let end = stat.lastIndex(of: ")")
      else { return true }
      return stat[stat.index(after: end)...].split(separator: " ").first == "Z"
    }
    let stopped = Date().addingTimeInterval(15)
    while !ended(watchdog.processIdentifier), Date() < stopped { Thread.sleep(forTimeInterval: 0.1) }
    #expect(ended(watchdog.processIdentifier), "the watchdog stopped once its owner was gone")
    var left = try running()
    for _ in 0..<20 where left {
      Thread.sleep(forTimeInterval: 0.1)
      left = try running()
    }
    if left { _ = try? Tool.run("pkill", ["-9", "-f", "^sleep \(marker)$"]) }
    #expect(!left, "the daemon's child outlived it and its watchdog")
    watchdog.waitUntilExit()
  }
}
