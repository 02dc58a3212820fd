package import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A program could not be started: what `posix_spawn` or its file actions said.
package struct SpawnFailure: Error, CustomStringConvertible {
  package let description: String
}

extension BoundedProcess {
  /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later, Debian 12 has 2.36; a
  /// GNU extension that Swift's Glibc module does not declare), found at first use; nil on an
  /// older glibc, where helpers inherit what is not close-on-exec.
  private static let closeFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? =
    dlsym(nil, "posix_spawn_file_actions_addclosefrom_np").map {
      unsafeBitCast($0, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }

  /// Starts `argv[0]` (an absolute path) with `argv` and `environment` as every helper of this
  /// process starts — the bounded ones here and the mail transport: standard input from
  /// `/dev/null`, output and error into `output` and `errors` (files truncated, or `/dev/null`),
  /// and nothing else of this process. A descriptor opened without close-on-exec by any library
  /// (or by another thread at this moment) would otherwise stay open as long as the program runs
  /// — a raw printer's socket kept open by a document reader is a job the printer does not see
  /// end. No blocked signals and every signal's default action: a daemon's threads block
  /// SIGTERM, and it ignores SIGTERM and SIGINT (it takes them as events), which a child would
  /// keep across `exec` — a transport started so outlived `systemctl stop` until its SIGKILL.
  /// With `ownGroup` it leads a process group of its own. Returns its pid: the caller reaps it.
  package static func spawn(
    _ argv: [String], environment: [String: String], output: String = "/dev/null", errors: String = "/dev/null",
    ownGroup: Bool = false
  ) throws(SpawnFailure) -> pid_t {
    let arguments = argv.map { strdup($0) } + [nil]
    defer { arguments.forEach { free($0) } }
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { envp.forEach { free($0) } }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_TRUNC, 0o600)
    if let closeFrom = Self.closeFrom, closeFrom(&actions, 3) != 0 {
      throw SpawnFailure(description: "posix_spawn_file_actions_addclosefrom_np failed")
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
    var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
    if ownGroup {
      posix_spawnattr_setpgroup(&attributes, 0)
      flags |= POSIX_SPAWN_SETPGROUP
    }
    posix_spawnattr_setflags(&attributes, Int16(flags))
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, argv[0], &actions, &attributes, arguments, envp)
    guard spawned == 0 else { throw SpawnFailure(description: String(cString: strerror(spawned))) }
    return pid
  }
}
