public import Foundation
import ReceiptRender

#if canImport(Glibc)
  import Glibc
#endif

/// Hands e-receipts to the machine's mail transport through the standard `sendmail` interface
/// (`sendmail -i -f FROM -- TO`, the message on its standard input: Postfix, Exim and msmtp all
/// provide it), so relays, TLS and credentials stay the administrator's. Each handoff runs in a
/// process of its own that outlives the caller and leaves its outcome in files named after it —
/// the message (`NAME.eml`), its process (`NAME.pid`), what the transport said (`NAME.err`) and
/// its exit status (`NAME.status`, written last, atomically) — so a daemon killed mid-handoff
/// learns after its restart whether the message was handed over, and never sends it twice.
public struct MailHandoff: Sendable {
  /// The transport's command (`["/usr/sbin/sendmail"]`, or `["/usr/bin/msmtp", "-C", FILE]`).
  public let command: [String]
  /// Where handoffs keep their files.
  public let directory: URL

  /// Where a handoff is.
  public enum State: Sendable, Equatable {
    /// Never started, or cut off before its transport ran to the end (the process is gone
    /// without a status): the message was not handed over and may be sent.
    case none
    /// Its process is still running.
    case running
    /// The transport exited: 0 is handed over; anything else is refused (what it said).
    case finished(status: Int32, message: String)
  }

  /// Creates a handoff over a transport command, keeping its files in `directory`.
  public init(command: [String], directory: URL) {
    self.command = command
    self.directory = directory
  }

  func file(_ name: String, _ suffix: String) -> URL { directory.appendingPathComponent("\(name).\(suffix)") }

  /// The handoff's state.
  public func state(of name: String) -> State {
    if let text = Self.text(of: file(name, "status")),
      let status = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
    {
      let message = Self.text(of: file(name, "err")) ?? ""
      return .finished(status: status, message: message.trimmingCharacters(in: .whitespacesAndNewlines))
    }
    guard let text = Self.text(of: file(name, "pid")),
      let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 0
    else { return .none }
    // The process is ours while its command line still names this handoff.
    let cmdline = Self.text(of: URL(fileURLWithPath: "/proc/\(pid)/cmdline")) ?? ""
    let arguments = cmdline.utf8.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    return arguments.contains(file(name, "eml").path) ? .running : .none
  }

  /// A file's text (nil when it cannot be read), read through `FileHandle`: swift-foundation's
  /// `String(contentsOf:)` and `Data(contentsOf:)` keep (leak) their first 4 KiB read buffer on
  /// Linux when a file is empty — and `.err` is empty after every handoff whose transport said
  /// nothing, as is a finished process's `cmdline` (LeakSanitizer, `make sanitize`;
  /// MailHandoffTests reads them).
  static func text(of url: URL) -> String? {
    guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
    defer { try? handle.close() }
    guard let data = try? handle.readToEnd() else { return nil }
    return String(decoding: data ?? Data(), as: UTF8.self)
  }

  /// Starts handing `message` over as `name` in a process of its own (its own session: a signal
  /// to the caller's process group does not reach it). Earlier files of the name are replaced.
  public func start(_ message: MailMessage, name: String) throws {
    guard let executable = command.first else { throw MailError.transportMissing("no command") }
    guard FileManager.default.isExecutableFile(atPath: executable) else {
      throw MailError.transportMissing("\(executable) is not an executable file (install an MTA, or set sendmail)")
    }
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    remove(name)
    let eml = file(name, "eml")
    try message.bytes.write(to: eml, options: .atomic)
    // $1: the files' stem; $2: the message; the transport and its arguments follow.
    let script = """
      stem=$1; eml=$2; shift 2
      echo $$ > "$stem.pid.tmp" && mv "$stem.pid.tmp" "$stem.pid"
      "$@" < "$eml" > "$stem.err" 2>&1
      echo $? > "$stem.status.tmp" && mv "$stem.status.tmp" "$stem.status"
      """
    // `setsid --fork`: the handoff's process is a grandchild in a session of its own (a signal
    // to the daemon's group does not reach it), and the daemon has no child left to reap.
    try Self.run(
      [
        "/usr/bin/setsid", "--fork", "/bin/sh", "-c", script, "receipt-mail",
        directory.appendingPathComponent(name).path, eml.path,
      ]
        + command + ["-i", "-f", message.from, "--", message.to])
  }

  /// Runs `arguments` (`setsid`, which forks and leaves at once) as the daemon's helpers start
  /// (``BoundedProcess/spawn(_:environment:output:errors:ownGroup:)``: nothing of the daemon's,
  /// default signals — not Foundation's `Process`, whose child kept the daemon's blocked and
  /// ignored SIGTERM) and waits for it.
  static func run(_ arguments: [String]) throws {
    let pid: pid_t
    do {
      pid = try BoundedProcess.spawn(arguments, environment: ProcessInfo.processInfo.environment)
    } catch {
      throw MailError.transportMissing("cannot start \(arguments[0]): \(error)")
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0, errno == EINTR {}
    guard status == 0 else {
      throw MailError.transportMissing("\(arguments[0]) ended with status \(status) before the handoff started")
    }
  }

  /// Waits until the handoff is no longer running (polling its files), at most `timeout` seconds;
  /// its state then.
  public func wait(for name: String, timeout: TimeInterval, shouldStop: @Sendable () -> Bool = { false }) async
    -> State
  {
    let deadline = Date().addingTimeInterval(timeout)
    var interval: UInt64 = 20_000_000
    while true {
      let state = state(of: name)
      // A process that has written its pid but not yet a status is running; one started a
      // moment ago may not have written its pid yet: give it until the deadline.
      if case .finished = state { return state }
      if Date() >= deadline || shouldStop() { return state }
      try? await Task.sleep(nanoseconds: interval)
      interval = min(interval * 2, 200_000_000)
    }
  }

  /// Removes a handoff's files.
  public func remove(_ name: String) {
    for suffix in ["eml", "pid", "err", "status", "pid.tmp", "status.tmp"] {
      try? FileManager.default.removeItem(at: file(name, suffix))
    }
  }
}
