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

extension Console {
  /// A standard stream the process was started without (`receipt measure x >&-`) is reserved
  /// on `/dev/null` opened the other way round, before anything else can open a file on its
  /// number: writing standard output then fails with "Bad file descriptor" (exit 73), as it
  /// should, instead of landing in whatever file, socket or event descriptor took number 1.
  package static func reserveClosedStandardStreams() {
    for descriptor: Int32 in 0...2 where fcntl(descriptor, F_GETFD) == -1 {
      let reserved = open("/dev/null", descriptor == 0 ? O_WRONLY : O_RDONLY)
      if reserved >= 0, reserved != descriptor {
        dup2(reserved, descriptor)
        close(reserved)
      }
    }
  }

  /// The program documents are read with, in a process of their own (``ReadDocument``): this
  /// program itself, by the path the kernel has for it. Nil where that cannot be told (no
  /// /proc): documents are then read in this process.
  package static var documentReader: String? {
    guard let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"),
      FileManager.default.isExecutableFile(atPath: path)
    else { return nil }
    return path
  }

  /// What a failed command prints and exits with (see ``ParsableCommand/runAsReceipt()``).
  fileprivate static func fail<Command: ParsableCommand>(_ command: Command.Type, _ error: any Error) -> Never {
    let code = Command.exitCode(for: error)
    if code == .success || error is CleanExit {
      Command.exit(withError: error)
    }
    if !(error is ExitCode) {
      let message = Command.message(for: error).split(separator: "\n").first.map(String.init) ?? "\(error)"
      let lowered = message.prefix(1).lowercased() + message.dropFirst()
      Console.error("receipt: error: \(lowered.hasPrefix("error: ") ? String(lowered.dropFirst(7)) : lowered)")
    }
    Glibc.exit(code.rawValue)
  }
}

extension ParsableCommand {
  /// Runs the command tree rooted here (`receipt`: synchronous, so no concurrency runtime starts
  /// for a one-shot command). Every error is one line `receipt: error: …` on standard error with
  /// the documented exit code; help and version go to standard output as usual. A closed pipe is
  /// a write error, not a silent death by SIGPIPE.
  package static func runAsReceipt() {
    Console.reserveClosedStandardStreams()
    signal(SIGPIPE, SIG_IGN)
    DocumentPages.helper = Console.documentReader
    do {
      var command = try parseAsRoot()
      try command.run()
    } catch {
      Console.fail(Self.self, error)
    }
  }
}

extension AsyncParsableCommand {
  /// Runs the command tree rooted here (`receipt-daemon`), as ``ParsableCommand/runAsReceipt()``
  /// does, with async commands.
  package static func runAsReceipt() async {
    Console.reserveClosedStandardStreams()
    signal(SIGPIPE, SIG_IGN)
    DocumentPages.helper = Console.documentReader
    do {
      var command = try parseAsRoot()
      if var command = command as? any AsyncParsableCommand {
        try await command.run()
      } else {
        try command.run()
      }
    } catch {
      Console.fail(Self.self, error)
    }
  }
}
