public import ArgumentParser
import ReceiptKit

/// The options of `receipt serve`, parsed by the `receipt` front (for help and checking) and by
/// `receipt-daemon`, which runs the daemon.
package struct ServeOptions: ParsableArguments {
  /// The command's help.
  package static let configuration = CommandConfiguration(
    commandName: "serve",
    abstract: "Run the print-queue daemon: a durable REST queue that prints each job once, in order.",
    discussion: """
      Settings come from --config FILE (JSON; or $RECEIPT_CONFIG), then the \
      environment (RECEIPT_HOST, RECEIPT_PORT, RECEIPT_DB, RECEIPT_TEMPLATES, \
      RECEIPT_PRINTERS, RECEIPT_DEFAULT_PRINTER, RECEIPT_TOKENS, \
      RECEIPT_CORS_ORIGINS, RECEIPT_IPP, RECEIPT_IPP_HOST, RECEIPT_IPP_PORT), \
      then these flags.

      Listens on 127.0.0.1 unless told otherwise (then a token is required); \
      every printer is also an IPP Everywhere / AirPrint printer on --ipp-port. \
      SIGTERM or SIGINT stops it gracefully: the HTTP server first, then each \
      printer finishes its job in hand.

      Example:
        receipt serve --printer counter=cups:Roll80 \\
          --printer kitchen=socket://10.0.0.42:9100 \\
          --printer archive=dir:/var/lib/receipt/archive \\
          --db /var/lib/receipt/queue.sqlite
      """
  )

  @Option(
    help: "A JSON configuration file (see serve.json(5), or docs/daemon.md).", completion: .file(extensions: ["json"]))
  package var config: String?
  @Option(help: "Address to listen on (default 127.0.0.1).") package var host: String?
  @Option(help: "Port to listen on (default 8631; 0 picks a free one).") package var port: Int?
  @Option(
    help:
      "The queue: a SQLite file (default receipt-queue.sqlite), or a PostgreSQL database shared by several daemons (postgres://user@host:port/database)."
  ) package var db: String?
  @Option(
    help: ArgumentHelp(
      "A printer: \(PrinterAddress.syntax.map { "NAME=\($0)" }.joined(separator: ", ") ) (repeatable)."))
  package var printer: [String] = []
  @Option(help: "The printer of jobs that name none (default: the first).") package var defaultPrinter: String?
  @Option(help: "Attempts before a job is dead (default 20).") package var maxAttempts: Int?
  @Option(help: "A bearer token clients must send (repeatable; required off loopback).") package var token: [String] =
    []
  @Option(help: "An origin allowed to call the API from a browser, e.g. https://pos.example.com (repeatable).")
  package var corsOrigin: [String] = []
  @Option(help: "Templates directory (default: $RECEIPT_TEMPLATES, ./Templates, or the one shipped with receipt).")
  package var templates: String?
  @Option(help: "Port of the IPP printers (default: the API's port + 2, i.e. 8633; 0 picks a free one).")
  package var ippPort: Int?
  @Option(help: "Address the IPP printers listen on (default 127.0.0.1; 0.0.0.0 for phones and tablets).")
  package var ippHost: String?
  @Flag(help: "Do not offer the printers over IPP (AirPrint / IPP Everywhere).") package var noIpp = false

  package init() {}
}

/// The options of `receipt design` (see ``ServeOptions``).
package struct DesignOptions: ParsableArguments {
  /// The command's help.
  package static let configuration = CommandConfiguration(
    commandName: "design",
    abstract: "Try templates in the browser: the daemon with its designer, a directory printer and a fresh token.",
    discussion: """
      Serves the web app (template designer with live preview, and the queue) \
      on loopback and prints its address with a one-time token; open it in a \
      browser. Templates are read from and saved to DIR (the previous version \
      of a saved template is kept in DIR/.history). Jobs print as PDF files \
      into --work DIR/printed; the queue is --work DIR/queue.sqlite. Ctrl-C \
      stops it.

      Example:
        receipt design Templates
      """
  )

  @Argument(help: "Templates directory (default: $RECEIPT_TEMPLATES, ./Templates, or the one shipped with receipt).")
  package var templates: String?
  @Option(help: "Port to listen on on 127.0.0.1 (0 picks a free one).") package var port: Int = 8632
  @Option(help: "Directory for printed receipts and the queue (default: receipt-design in the temporary directory).")
  package var work: String?
  @Option(help: "The token the browser must give (default: a new random one).") package var token: String?

  package init() {}
}
