import ArgumentParser
import Foundation
import ReceiptKit
import ReceiptServer

struct Serve: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Run the print-queue daemon: a durable REST queue that prints each job once, in order.",
    discussion: """
      Listens on 127.0.0.1 unless --host says otherwise (then --token is required).
      Example:
        receipt serve --printer counter=cups:Roll80 --printer kitchen=socket://10.0.0.42:9100 \\
          --printer archive=dir:/var/lib/receipt/archive --db /var/lib/receipt/queue.sqlite
      """
  )

  @Option(help: "Address to listen on.") var host = "127.0.0.1"
  @Option(help: "Port to listen on.") var port = 8631
  @Option(help: "The queue's SQLite file.") var db = "receipt-queue.sqlite"
  @Option(help: "A printer: NAME=cups:QUEUE, NAME=socket://HOST:PORT or NAME=dir:PATH (repeatable).")
  var printer: [String] = []
  @Option(help: "The printer of jobs that name none (default: the first).") var defaultPrinter: String?
  @Option(help: "Attempts before a job is dead.") var maxAttempts = 8
  @Option(help: "Bearer token clients must send (required off loopback).") var token: String?
  @Option(help: "Templates directory (default: $RECEIPT_TEMPLATES, ./Templates, or the one shipped with receipt).")
  var templates: String?

  func run() async throws {
    var printers: [PrinterConfig] = []
    for spec in printer {
      let parts = spec.split(separator: "=", maxSplits: 1).map(String.init)
      guard parts.count == 2, !parts[0].isEmpty, let target = PrinterTarget(parsing: parts[1]) else {
        throw ValidationError(
          "--printer takes NAME=cups:QUEUE, NAME=socket://HOST:PORT or NAME=dir:PATH, not '\(spec)'")
      }
      printers.append(PrinterConfig(name: parts[0], target: target))
    }
    guard !printers.isEmpty else { throw ValidationError("give at least one --printer") }
    var choice = try TemplateChoice.parse([])
    choice.templates = templates
    let configuration = ReceiptServer.Configuration(
      host: host, port: port, database: db, templates: try choice.directory(), printers: printers,
      defaultPrinter: defaultPrinter, maxAttempts: maxAttempts, token: token)
    try await reportingErrorsAsync {
      let server = try ReceiptServer(configuration: configuration)
      print("receipt serve: http://\(host):\(port)/v1 with printers \(printers.map(\.name).joined(separator: ", "))")
      try await server.run()
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
