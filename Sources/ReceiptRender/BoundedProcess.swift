package import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A helper program run with a time and a memory bound — poppler's tools, and the process that
/// reads an untrusted document (`receipt read-document`). The limits are set by the shell that
/// then becomes the program (`ulimit -v` for address space, `ulimit -t` for CPU seconds; `exec`
/// keeps the pid), and the wall-clock limit by this side: the program is killed with SIGKILL
/// (children may start with SIGTERM blocked) when it is up, or when `shouldStop` says so.
///
/// Standard output and error go to private files, not pipes (a page of pixels is megabytes; a
/// pipe would have to be drained while waiting); no other descriptor of this process reaches it.
/// With `ownGroup` the program leads a process group of its own and the kill reaches everything
/// it started; without, it stays in the caller's group (poppler run by the document reader then
/// dies with the reader's group).
package enum BoundedProcess {
  /// How a run ended.
  package struct Result: Sendable {
    /// The exit status (meaningful when `signal` is nil and it was not killed).
    package var status: Int32
    package var output: Data
    /// The first 4 KiB of what it wrote to standard error.
    package var error: Data
    /// Killed at the wall-clock limit.
    package var timedOut: Bool
    /// Killed because `shouldStop` said so.
    package var stopped: Bool
    /// The signal that ended it (a crash, or a limit: SIGKILL for memory, SIGXCPU for CPU time),
    /// nil when it exited.
    package var signal: Int32?

    /// It exited by itself with status 0.
    package var succeeded: Bool { status == 0 && signal == nil && !timedOut && !stopped }
  }

  /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later, Debian 12 has 2.36; a
  /// GNU extension that Swift's Glibc module does not declare), found at first use; nil on an
  /// older glibc, where helpers inherit what is not close-on-exec.
  package static let closeFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? =
    dlsym(nil, "posix_spawn_file_actions_addclosefrom_np").map {
      unsafeBitCast($0, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }

  /// Runs `path` with `arguments` under the limits; `shouldStop` is asked every 10 ms.
  package static func run(
    _ path: String, _ arguments: [String], timeout: TimeInterval, memoryLimit: Int, cpuSeconds: Int? = nil,
    ownGroup: Bool = false, shouldStop: (@Sendable () -> Bool)? = nil
  ) throws -> Result {
    let directory = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
    let output = try TemporaryFile(Data(), suffix: ".out", in: directory)
    defer { output.remove() }
    let errors = try TemporaryFile(Data(), suffix: ".err", in: directory)
    defer { errors.remove() }
    // A limit can only be lowered: inside a process already bounded (poppler run by the document
    // reader) the lower of the two applies.
    var limits = "ulimit -v \(min(memoryLimit, currentLimit(RLIMIT_AS)) / 1024)"
    if let cpuSeconds { limits += " && ulimit -t \(min(cpuSeconds, currentLimit(RLIMIT_CPU)))" }
    let argv = (["/bin/sh", "-c", limits + " && exec \"$0\" \"$@\"", path] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var environment = ProcessInfo.processInfo.environment
    environment["LC_ALL"] = "C.UTF-8"
    environment["PATH"] = environment["PATH"] ?? "/usr/bin:/bin"
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { envp.forEach { free($0) } }

    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, output.path, O_WRONLY | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, errors.path, O_WRONLY | O_TRUNC, 0o600)
    // Nothing else of this process reaches the program: a descriptor opened without
    // close-on-exec by any library (or by another thread at this moment) would otherwise stay
    // open as long as the program runs — a raw printer's socket kept open by a document reader
    // is a job the printer does not see end.
    if let closeFrom = Self.closeFrom, closeFrom(&actions, 3) != 0 {
      throw RenderError.document("cannot run \(path): posix_spawn_file_actions_addclosefrom_np failed")
    }
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    // No blocked signals and default actions (a daemon's threads block SIGTERM); a group of its
    // own when asked.
    var none = sigset_t()
    sigemptyset(&none)
    var all = sigset_t()
    sigfillset(&all)
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setsigdefault(&attributes, &all)
    var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
    if ownGroup {
      posix_spawnattr_setpgroup(&attributes, 0)
      flags |= POSIX_SPAWN_SETPGROUP
    }
    posix_spawnattr_setflags(&attributes, Int16(flags))
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, envp)
    guard spawned == 0 else {
      throw RenderError.document("cannot run \(path): \(String(cString: strerror(spawned)))")
    }
    let deadline = Date().addingTimeInterval(timeout)
    var (timedOut, stopped) = (false, false)
    while !hasExited(pid) {
      if shouldStop?() == true {
        stopped = true
      } else if Date() >= deadline {
        timedOut = true
      } else {
        usleep(10_000)
        continue
      }
      break
    }
    // Killed while its pid is still reserved (not reaped yet): no other process can have the
    // number, and with its own group everything it started goes too.
    if timedOut || stopped || ownGroup { kill(ownGroup ? -pid : pid, SIGKILL) }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0, errno == EINTR {}
    let signal = status & 0x7F
    return Result(
      status: (status >> 8) & 0xFF, output: output.contents(), error: errors.contents(limit: 4096),
      timedOut: timedOut, stopped: stopped, signal: signal == 0 ? nil : signal)
  }

  /// This process's hard limit of `resource` (`Int.max` when unlimited).
  private static func currentLimit(_ resource: __rlimit_resource) -> Int {
    var limit = rlimit()
    guard getrlimit(Int32(resource.rawValue), &limit) == 0, limit.rlim_max != rlim_t.max else { return .max }
    return Int(clamping: limit.rlim_max)
  }

  /// Whether the child `pid` has ended, without reaping it (`waitid` with `WNOWAIT`).
  private static func hasExited(_ pid: pid_t) -> Bool {
    var info = siginfo_t()
    while true {
      let result = waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT)
      if result < 0, errno == EINTR { continue }
      // An error (no such child) counts as ended: waitpid then says how.
      return result < 0 || info._sifields._sigchld.si_pid == pid
    }
  }
}

/// A private file (0600) in the temporary directory holding `data`, removed by ``remove()``.
package struct TemporaryFile: Sendable {
  package let path: String

  package init(_ data: Data, suffix: String, in directory: String? = nil) throws {
    let directory = directory ?? ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
    var template = Array("\(directory)/receipt-XXXXXX\(suffix)".utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { mkstemps($0.baseAddress!, Int32(suffix.utf8.count)) }
    guard fd >= 0 else { throw RenderError.output("cannot create a temporary file in \(directory)") }
    path = String(cString: template)
    let written = data.withUnsafeBytes { raw in
      var offset = 0
      while offset < raw.count {
        let n = write(fd, raw.baseAddress! + offset, raw.count - offset)
        if n < 0, errno == EINTR { continue }
        if n <= 0 { return false }
        offset += n
      }
      return true
    }
    close(fd)
    guard written else {
      unlink(path)
      throw RenderError.output("cannot write a temporary file in \(directory)")
    }
  }

  /// The file's bytes (at most `limit`).
  package func contents(limit: Int = .max) -> Data {
    guard let handle = FileHandle(forReadingAtPath: path) else { return Data() }
    defer { try? handle.close() }
    return (limit == .max ? try? handle.readToEnd() : try? handle.read(upToCount: limit)) ?? Data()
  }

  package func remove() { unlink(path) }
}
