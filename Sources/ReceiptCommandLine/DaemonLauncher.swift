import Foundation
import ReceiptKit

#if canImport(Glibc)
  import Glibc
#endif

/// Starts `receipt-daemon` in place of `receipt` for the long-running commands. The daemon is a
/// binary of its own so that a one-shot `receipt render` does not load (or scan the Swift
/// conformances of) the HTTP server, NIO, GRDB and the PostgreSQL client: it is looked up beside
/// `receipt` (`make install` puts both in `PREFIX/bin`) and replaces this process (`execv`: same
/// PID, same signals, same standard streams — what a service manager expects).
package enum DaemonLauncher {
  /// The daemon binary's path: beside this executable, symbolic links resolved.
  package static var daemonPath: String {
    let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    return executable.deletingLastPathComponent().appendingPathComponent("receipt-daemon").path
  }

  /// Replaces this process by `receipt-daemon COMMAND` with the arguments that followed
  /// `COMMAND`; returns only by throwing.
  package static func become(_ command: String) throws {
    let path = daemonPath
    guard FileManager.default.isExecutableFile(atPath: path) else {
      throw ReceiptError(
        .printer,
        "receipt \(command) runs receipt-daemon, which is not installed beside receipt (\(path)); install both (make install)"
      )
    }
    let arguments = CommandLine.arguments
    let rest = arguments.firstIndex(of: command).map { Array(arguments[($0 + 1)...]) } ?? []
    let argv = ([path, command] + rest).map { strdup($0) } + [nil]
    execv(path, argv)
    let reason = String(cString: strerror(errno))
    throw ReceiptError(.printer, "cannot start \(path): \(reason)")
  }
}
