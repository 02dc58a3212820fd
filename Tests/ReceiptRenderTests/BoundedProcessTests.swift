import Foundation
import Testing

@testable import ReceiptRender

#if canImport(Glibc)
  import Glibc
#endif

/// A helper (poppler, the document reader) gets standard input, output and error and nothing
/// else of the process: a descriptor left without close-on-exec (a raw printer's socket, a
/// pipe another thread just made) would stay open as long as the helper runs.
@Suite struct BoundedProcessTests {
  @Test func aHelperGetsNoDescriptorButItsOwnThree() throws {
    var pair: [Int32] = [0, 0]
    #expect(pipe(&pair) == 0)  // no close-on-exec
    // Far above the numbers the helper's own files take (`ls` opens its directory as 3).
    let ends = pair.map { fcntl($0, F_DUPFD, 500) }
    pair.forEach { close($0) }
    defer { ends.forEach { close($0) } }
    #expect(ends.allSatisfy { $0 >= 500 })
    let result = try BoundedProcess.run(
      "/bin/sh", ["-c", "ls /proc/self/fd"], timeout: 10, memoryLimit: 1 << 30)
    #expect(result.succeeded)
    // The shell's own 0, 1 and 2, and the directory `ls` reads.
    let open = String(decoding: result.output, as: UTF8.self).split(separator: "\n").compactMap { Int32($0) }
    #expect(!open.contains(ends[0]) && !open.contains(ends[1]), "the helper holds \(open), the pipe is \(ends)")
    #expect(open.filter { $0 > 2 }.count <= 1, "\(open)")
  }

  /// A program `spawn` starts (the helpers, the mail handoff's `setsid`) blocks no signal and
  /// ignores none, whatever the starting thread blocked and the process ignored: a daemon's
  /// threads block SIGTERM and it ignores SIGTERM and SIGINT, which a child would keep across
  /// `exec`. `grep` reads its own masks (no shell between: dash clears a child's blocked mask).
  @Test func aSpawnedProgramHasNoBlockedOrIgnoredSignal() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("spawn-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let report = directory.appendingPathComponent("masks").path
    #expect(FileManager.default.createFile(atPath: report, contents: nil))
    let previous = signal(SIGUSR2, SIG_IGN)
    defer { signal(SIGUSR2, previous) }
    var blocked = sigset_t()
    sigemptyset(&blocked)
    sigaddset(&blocked, SIGTERM)
    var old = sigset_t()
    pthread_sigmask(SIG_BLOCK, &blocked, &old)
    let pid = try? BoundedProcess.spawn(
      ["/bin/grep", "-E", "^Sig(Blk|Ign):", "/proc/self/status"], environment: [:], output: report)
    pthread_sigmask(SIG_SETMASK, &old, nil)
    let child = try #require(pid)
    var status: Int32 = 0
    while waitpid(child, &status, 0) < 0, errno == EINTR {}
    #expect(status == 0)
    var masks: [String: UInt64] = [:]
    for line in try String(contentsOfFile: report, encoding: .utf8).split(separator: "\n") {
      let parts = line.split(separator: ":")
      if parts.count == 2 { masks[String(parts[0])] = UInt64(parts[1].trimmingCharacters(in: .whitespaces), radix: 16) }
    }
    #expect(masks["SigBlk"] == 0, "no signal blocked")
    // The standard signals (1–31): glibc keeps its two real-time signals out of posix_spawn's reach.
    #expect(masks["SigIgn"].map { $0 & 0x7FFF_FFFF } == 0, "no signal ignored")
  }
}
