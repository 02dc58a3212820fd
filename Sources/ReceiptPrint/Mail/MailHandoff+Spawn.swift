import Foundation
import ReceiptRender

#if canImport(Glibc)
  import Glibc
#endif

extension MailHandoff {
  /// Runs `arguments` (an absolute path first) and waits for it to exit: standard streams on
  /// `/dev/null`, no other descriptor of this process (`closefrom`), no blocked signals and
  /// every signal's default action. Not Foundation's `Process`, whose child keeps the starting
  /// thread's signal mask and the dispositions the daemon ignores (SIGTERM and SIGINT, which it
  /// takes as events): a transport started that way outlived `systemctl stop` until systemd's
  /// SIGKILL. Throws ``MailError/transportMissing(_:)`` when it cannot start or does not exit 0.
  static func run(_ arguments: [String]) throws {
    let argv = arguments.map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    let envp = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { envp.forEach { free($0) } }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    if let closeFrom = BoundedProcess.closeFrom, closeFrom(&actions, 3) != 0 {
      throw MailError.transportMissing("cannot start \(arguments[0]): posix_spawn_file_actions_addclosefrom_np failed")
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
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, envp)
    guard spawned == 0 else {
      throw MailError.transportMissing("cannot start \(arguments[0]): \(String(cString: strerror(spawned)))")
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0, errno == EINTR {}
    guard status == 0 else {
      throw MailError.transportMissing("\(arguments[0]) ended with status \(status) before the handoff started")
    }
  }
}
