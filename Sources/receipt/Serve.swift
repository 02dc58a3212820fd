import ArgumentParser
import Foundation
import ReceiptKit
import ReceiptServer

struct Serve: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Run the print-queue daemon: a durable REST queue that prints each job once, in order.",
    discussion: """
      Settings come from --config FILE (JSON; or $RECEIPT_CONFIG), then the environment \
      (RECEIPT_HOST, RECEIPT_PORT, RECEIPT_DB, RECEIPT_TEMPLATES, RECEIPT_PRINTERS, \
      RECEIPT_DEFAULT_PRINTER, RECEIPT_TOKENS, RECEIPT_CORS_ORIGINS), then these flags.
      Listens on 127.0.0.1 unless told otherwise (then a token is required). SIGTERM or SIGINT \
      stops it gracefully: the HTTP server first, then each printer finishes its job in hand.
      Example:
        receipt serve --printer counter=cups:Roll80 --printer kitchen=socket://10.0.0.42:9100 \\
          --printer archive=dir:/var/lib/receipt/archive --db /var/lib/receipt/queue.sqlite
      """
  )

  @Option(help: "A JSON configuration file (see the README).") var config: String?
  @Option(help: "Address to listen on (default 127.0.0.1).") var host: String?
  @Option(help: "Port to listen on (default 8631; 0 picks a free one).") var port: Int?
  @Option(
    help:
      "The queue: a SQLite file (default receipt-queue.sqlite), or a PostgreSQL database shared by several daemons (postgres://user@host:port/database)."
  ) var db: String?
  @Option(
    help:
      "A printer: NAME=cups:QUEUE, NAME=socket://HOST:PORT, NAME=usb:DEVICE, NAME=serial:DEVICE?baud=N or NAME=dir:PATH (repeatable)."
  )
  var printer: [String] = []
  @Option(help: "The printer of jobs that name none (default: the first).") var defaultPrinter: String?
  @Option(help: "Attempts before a job is dead (default 20).") var maxAttempts: Int?
  @Option(help: "A bearer token clients must send (repeatable; required off loopback).") var token: [String] = []
  @Option(help: "An origin allowed to call the API from a browser, e.g. https://pos.example.com (repeatable).")
  var corsOrigin: [String] = []
  @Option(help: "Templates directory (default: $RECEIPT_TEMPLATES, ./Templates, or the one shipped with receipt).")
  var templates: String?

  func run() async throws {
    try await reportingErrorsAsync {
      let environment = ProcessInfo.processInfo.environment
      var settings = ReceiptServer.Configuration.Settings()
      if let file = config ?? environment["RECEIPT_CONFIG"] {
        settings = try .init(file: URL(fileURLWithPath: file))
      }
      settings = settings.overridden(by: try .init(environment: environment))
      var flags = ReceiptServer.Configuration.Settings()
      flags.host = host
      flags.port = port
      flags.database = db
      flags.templates = templates
      if !printer.isEmpty {
        let parsed = try printer.map { try PrinterConfig.parse($0, setting: "--printer") }
        flags.printers = Dictionary(parsed.map { ($0.name, $0.target.description) }) { _, new in new }
        flags.defaultPrinter = parsed[0].name
      }
      flags.defaultPrinter = defaultPrinter ?? flags.defaultPrinter
      flags.maxAttempts = maxAttempts
      flags.tokens = token.isEmpty ? nil : token
      flags.corsOrigins = corsOrigin.isEmpty ? nil : corsOrigin
      settings = try settings.overridden(by: flags).withCUPSQueuesIfNoPrinters()
      var choice = try TemplateChoice.parse([])
      choice.templates = settings.templates
      let configuration = try ReceiptServer.Configuration(settings, templates: try choice.directory())
      let server = try ReceiptServer(configuration: configuration)
      let names = configuration.printers.map(\.name).joined(separator: ", ")
      let queue =
        PostgresURL.isPostgres(configuration.database)
        ? (try? PostgresURL(configuration.database).redacted) ?? "PostgreSQL" : configuration.database
      try await server.run { port in
        try? Console.out(
          "receipt serve: http://\(configuration.host):\(port)/v1 with printers \(names), queue \(queue)")
      }
    }
  }
}

/// The async form of `reportingErrors`.
func reportingErrorsAsync(_ body: () async throws -> Void) async throws {
  do {
    try await body()
  } catch let error as ReceiptError {
    try reportingErrors { throw error }
  }
}
