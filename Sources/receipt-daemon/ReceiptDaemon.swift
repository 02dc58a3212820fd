import ArgumentParser
import ReceiptCommandLine
import ReceiptKit

/// `receipt-daemon`: the long-running commands (`serve`, `design`), with the HTTP server, the
/// job stores (SQLite, PostgreSQL) and their libraries. `receipt serve` and `receipt design`
/// start it in their place, so that the one-shot commands (`render`, `print`, …) load none of it.
@main
struct ReceiptDaemon: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "receipt",
    abstract: "The print-queue daemon and the template designer (run as `receipt serve`, `receipt design`).",
    version: ReceiptEngine.version,
    subcommands: [Serve.self, Design.self, ReadDocument.self]
  )

  static func main() async { await runAsReceipt() }
}
