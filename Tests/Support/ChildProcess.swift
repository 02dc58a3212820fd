import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A program the tests start (`posix_spawn`), waited for with `waitpid` — never Foundation's
/// `Process`, whose end is seen only when a socket it shares with the child closes: that
/// socket is created without close-on-exec, so a program spawned at the same moment by another
/// thread inherits it too, and the first one "runs" until the other has ended (a `cat` of
/// milliseconds took the 20 s of a `sleep` started beside it, `ToolTests`; `pg_ctl start` was
/// never seen to end, its server holding the socket).
///
/// A child here gets its standard streams and nothing else of this process (every other
/// descriptor is closed in it: glibc's `posix_spawn_file_actions_addclosefrom_np`), no
/// blocked signals and default signal actions, and a process group of its own (as `Process`
/// gave it: a signal to the test runner's group does not reach it) unless `ownGroup` is false
/// — for `setsid`, which forks and leaves at once when started as a group's leader, so that
/// its pid would not be the program's.
public final class ChildProcess: @unchecked Sendable {
  /// Where a standard stream of the child goes.
  public enum Stream: Sendable {
    /// `/dev/null`.
    case null
    /// A file read from its start (standard input).
    case read(URL)
    /// A file written: truncated, or appended to.
    case write(URL, append: Bool = false)
    /// Standard error only: wherever standard output goes.
    case standardOutput
  }

  /// How it ended.
  public struct Termination: Sendable, Equatable {
    /// The exit status (0 when a signal ended it).
    public var status: Int32
    /// The signal that ended it, nil when it exited.
    public var signal: Int32?
  }

  /// The child's process id.
  public let pid: pid_t
  private let lock = NSLock()
  private var ended: Termination?

  /// Starts `program` (looked up in PATH unless it holds a slash) with `arguments`, this
  /// process's environment with `environment` over it (or exactly `replacingEnvironment`), in
  /// `directory` when given (else this process's working directory).
  public init(
    _ program: String, _ arguments: [String], environment: [String: String] = [:],
    replacingEnvironment: [String: String]? = nil, stdin: Stream = .null, stdout: Stream = .null,
    stderr: Stream = .null, ownGroup: Bool = true, directory: URL? = nil
  ) throws {
    let variables =
      replacingEnvironment ?? ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
    let argv = ([program] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { envp.forEach { free($0) } }

    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    for (descriptor, stream) in [(Int32(0), stdin), (1, stdout), (2, stderr)] {
      let result: Int32
      switch stream {
      case .null:
        result = posix_spawn_file_actions_addopen(
          &actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
      case .read(let url):
        result = posix_spawn_file_actions_addopen(&actions, descriptor, url.path, O_RDONLY, 0)
      case .write(let url, let append):
        result = posix_spawn_file_actions_addopen(
          &actions, descriptor, url.path, O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC), 0o644)
      case .standardOutput:
        result = posix_spawn_file_actions_adddup2(&actions, 1, descriptor)
      }
      guard result == 0 else { throw RigError("cannot run \(program): \(String(cString: strerror(result)))") }
    }
    // After the streams are open (their paths are the caller's), the child's working directory.
    if let directory {
      guard let changeDirectory = Self.changeDirectory, changeDirectory(&actions, directory.path) == 0 else {
        throw RigError(
          "cannot run \(program) in \(directory.path): no posix_spawn_file_actions_addchdir_np (glibc 2.29+)")
      }
    }
    guard let closeFrom = Self.closeFrom, closeFrom(&actions, 3) == 0 else {
      throw RigError("cannot run \(program): glibc has no posix_spawn_file_actions_addclosefrom_np (2.34+)")
    }
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t()
    sigemptyset(&none)
    var all = sigset_t()
    sigfillset(&all)
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setsigdefault(&attributes, &all)
    posix_spawnattr_setpgroup(&attributes, 0)
    posix_spawnattr_setflags(
      &attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | (ownGroup ? POSIX_SPAWN_SETPGROUP : 0)))
    var pid: pid_t = 0
    let spawned = posix_spawnp(&pid, program, &actions, &attributes, argv, envp)
    guard spawned == 0 else { throw RigError("cannot run \(program): \(String(cString: strerror(spawned)))") }
    self.pid = pid
  }

  /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later; a GNU extension
  /// Swift's Glibc module does not declare).
  private static let closeFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? =
    dlsym(nil, "posix_spawn_file_actions_addclosefrom_np").map {
      unsafeBitCast($0, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }

  /// glibc's `posix_spawn_file_actions_addchdir_np` (2.29 and later; a GNU extension Swift's
  /// Glibc module does not declare).
  private static let changeDirectory:
    (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32)? =
      dlsym(nil, "posix_spawn_file_actions_addchdir_np").map {
        unsafeBitCast(
          $0,
          to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32).self)
      }

  /// Whether it has not ended yet (it is not reaped by asking).
  public var isRunning: Bool {
    if lock.withLock({ ended }) != nil { return false }
    var info = siginfo_t()
    while true {
      let result = waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT)
      if result < 0, errno == EINTR { continue }
      return result == 0 && info._sifields._sigchld.si_pid != pid
    }
  }

  /// Waits until it has ended; how.
  @discardableResult
  public func wait() -> Termination {
    // Waited for without reaping (and without the lock: `send` stays free meanwhile); reaped
    // below, once, under the lock.
    var info = siginfo_t()
    while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0, errno == EINTR {}
    return lock.withLock {
      if let ended { return ended }
      var status: Int32 = 0
      var reaped: pid_t
      repeat { reaped = waitpid(pid, &status, 0) } while reaped < 0 && errno == EINTR
      let signal = status & 0x7F
      // (Not reaped here — not our child — says nothing but that it ended.)
      let termination =
        reaped < 0
        ? Termination(status: -1, signal: nil)
        : Termination(status: signal == 0 ? (status >> 8) & 0xFF : 0, signal: signal == 0 ? nil : signal)
      ended = termination
      return termination
    }
  }

  /// Waits at most `seconds` for it to end; how, or nil while it still runs.
  public func wait(seconds: TimeInterval) -> Termination? {
    let deadline = Date().addingTimeInterval(seconds)
    while isRunning {
      guard Date() < deadline else { return nil }
      Thread.sleep(forTimeInterval: 0.02)
    }
    return wait()
  }

  /// Reaps it on a thread of its own once it ends (a child nobody waits for stays a zombie
  /// until this process exits). Returns it.
  @discardableResult
  public func reapWhenEnded() -> ChildProcess {
    Thread.detachNewThread { self.wait() }
    return self
  }

  /// Sends `signal` while it has not been reaped (its pid cannot belong to another process).
  public func send(_ signal: Int32) {
    lock.withLock { if ended == nil { _ = kill(pid, signal) } }
  }
}
