public import ArgumentParser
import Foundation
import ReceiptKit

#if canImport(Glibc)
  import Glibc
#endif

/// Standard output and error for the CLI, written unbuffered with `write(2)`: every failed write
/// to stdout (disk full, a closed pipe) is exit 73, never a crash or a silent loss.
package enum Console {
  /// A line on standard output.
  package static func out(_ line: String) throws {
    try OutputFile.writeStandardOutput(Data((line + "\n").utf8))
  }

  /// A value as pretty JSON with sorted keys on standard output (`--json`).
  package static func json(_ value: some Encodable) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    try out(String(decoding: try encoder.encode(value), as: UTF8.self))
  }

  /// A line on standard error (never fails: a closed stderr loses the message, not the process).
  package static func error(_ line: String) {
    let bytes = Array((line.hasSuffix("\n") ? line : line + "\n").utf8)
    _ = bytes.withUnsafeBytes { Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count) }
  }
}

extension AsyncParsableCommand {
  /// Runs the command tree rooted here (`receipt`, `receipt-daemon`). Every error is one line
  /// `receipt: error: …` on standard error with the documented exit code; help and version go to
  /// standard output as usual. A closed pipe is a write error, not a silent death by SIGPIPE.
  package static func runAsReceipt() async {
    signal(SIGPIPE, SIG_IGN)
    do {
      var command = try parseAsRoot()
      if var command = command as? any AsyncParsableCommand {
        try await command.run()
      } else {
        try command.run()
      }
    } catch {
      let code = exitCode(for: error)
      if code == .success || error is CleanExit {
        exit(withError: error)
      }
      if !(error is ExitCode) {
        let message = Self.message(for: error).split(separator: "\n").first.map(String.init) ?? "\(error)"
        let lowered = message.prefix(1).lowercased() + message.dropFirst()
        Console.error("receipt: error: \(lowered.hasPrefix("error: ") ? String(lowered.dropFirst(7)) : lowered)")
      }
      Glibc.exit(code.rawValue)
    }
  }
}
