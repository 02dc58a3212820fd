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
    var environment = ProcessInfo.processInfo.environment
    environment["LC_ALL"] = "C.UTF-8"
    environment["PATH"] = environment["PATH"] ?? "/usr/bin:/bin"
    let pid: pid_t
    do {
      pid = try spawn(
        ["/bin/sh", "-c", limits + " && exec \"$0\" \"$@\"", path] + arguments, environment: environment,
        output: output.path, errors: errors.path, ownGroup: ownGroup)
    } catch {
      throw RenderError.document("cannot run \(path): \(error)")
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
