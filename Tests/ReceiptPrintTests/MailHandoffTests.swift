import Foundation
import ReceiptPrint
import ReceiptTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The mail transport starts as a program of its own, not as a part of the daemon: the daemon
/// ignores SIGTERM and SIGINT (it takes them as events) and its threads may block them, and a
/// transport that inherited that outlived `systemctl stop` until systemd's SIGKILL; a descriptor
/// of the daemon (a printer's connection) would stay open for as long as the transport runs.
@Suite struct MailHandoffTests {
  @Test func theTransportStartsWithDefaultSignalsAndOnlyItsStreams() async throws {
    let directory = try Tool.temporaryDirectory()
    let report = directory.appendingPathComponent("report")
    // A transport that reads the message and says how it was started: its ignored signals
    // (/proc's mask) and the descriptors a program it runs has (`ls` adds its own 3). The mask
    // is read by the shell's builtins, with no child running: dash blocks every signal for a
    // moment while it waits for a child, and a `grep` of the shell's status once caught it
    // there under a full test run's load. Blocked signals are not asked here — dash clears the
    // blocked mask of every child it starts, so a transport never shows what the daemon's
    // thread blocked; `BoundedProcessTests.aSpawnedProgramHasNoBlockedOrIgnoredSignal` asks
    // a program `spawn` starts itself.
    let transport = directory.appendingPathComponent("transport")
    try """
    #!/bin/sh
    cat > /dev/null
    while IFS= read -r line; do
      case $line in SigIgn:*) echo "$line" ;; esac
    done < /proc/$$/status > '\(report.path)'
    ls /proc/self/fd >> '\(report.path)'
    """.write(to: transport, atomically: true, encoding: .utf8)
    chmod(transport.path, 0o755)
    let handoff = MailHandoff(command: [transport.path], directory: directory.appendingPathComponent("mail"))
    let message = try MailMessage(
      from: "receipts@cafe.example", to: "anna@example.com", subject: "Reçu 1042", text: "Total  4,20 €\n",
      pdf: Data("%PDF-1.7".utf8), fileName: "1042.pdf", messageID: "1042@cafe.example")

    // As in the daemon: SIGTERM blocked on the starting thread, SIGUSR2 ignored by the process (a
    // signal nothing here uses), and a descriptor open without close-on-exec.
    let previous = signal(SIGUSR2, SIG_IGN)
    defer { signal(SIGUSR2, previous) }
    let held = open("/dev/null", O_RDONLY)
    defer { close(held) }
    try startWithSIGTERMBlocked { try handoff.start(message, name: "job-1042") }

    let state = await handoff.wait(for: "job-1042", timeout: 30)
    #expect(state == .finished(status: 0, message: ""))
    let lines = try String(contentsOf: report, encoding: .utf8).split(separator: "\n").map(String.init)
    var masks: [String: UInt64] = [:]
    for line in lines where line.hasPrefix("Sig") {
      let parts = line.split(separator: ":")
      masks[String(parts[0])] =
        parts.count == 2 ? UInt64(parts[1].trimmingCharacters(in: .whitespaces), radix: 16) : nil
    }
    // The standard signals (1–31): glibc keeps its two real-time signals (32, 33) out of
    // posix_spawn's reach, and nothing sends them to a transport.
    #expect(masks["SigIgn"].map { $0 & 0x7FFF_FFFF } == 0, "no signal ignored")
    #expect(lines.filter { !$0.hasPrefix("Sig") } == ["0", "1", "2", "3"], "descriptor \(held) stays in the daemon")
  }

  /// Runs `body` on this thread with SIGTERM blocked, as a daemon's threads run.
  private func startWithSIGTERMBlocked(_ body: () throws -> Void) throws {
    var blocked = sigset_t()
    sigemptyset(&blocked)
    sigaddset(&blocked, SIGTERM)
    var old = sigset_t()
    pthread_sigmask(SIG_BLOCK, &blocked, &old)
    defer { pthread_sigmask(SIG_SETMASK, &old, nil) }
    try body()
  }

  /// A finished handoff's files as the transport's wrapper leaves them: its status, and what the
  /// transport said — nothing (an empty file: read without swift-foundation's leak of empty
  /// files, see `MailHandoff.text(of:)`), a refusal, or bytes that are not UTF-8 (kept, repaired).
  @Test func aFinishedHandoffIsItsStatusAndWhatTheTransportSaid() throws {
    let directory = try Tool.temporaryDirectory()
    let handoff = MailHandoff(command: ["/bin/true"], directory: directory)
    func file(_ name: String) -> URL { directory.appendingPathComponent(name) }
    func finish(_ name: String, status: String, err: [UInt8]) throws {
      try Data(err).write(to: file("\(name).err"))
      try Data(status.utf8).write(to: file("\(name).status"))
    }
    try finish("silent", status: "0\n", err: [])
    #expect(handoff.state(of: "silent") == .finished(status: 0, message: ""))
    try finish("refused", status: "75\n", err: Array("relay refused: 4.7.1 try later\n".utf8))
    #expect(handoff.state(of: "refused") == .finished(status: 75, message: "relay refused: 4.7.1 try later"))
    try finish("latin1", status: "1", err: Array("Empf".utf8) + [0xE4] + Array("nger".utf8))
    #expect(handoff.state(of: "latin1") == .finished(status: 1, message: "Empf\u{FFFD}nger"))
    // Without a status: its pid file names a process whose command line does not name the
    // handoff (this test process), or none at all.
    try Data("\(getpid())\n".utf8).write(to: file("cut.pid"))
    #expect(handoff.state(of: "cut") == .none)
    #expect(handoff.state(of: "never") == .none)
  }
}
