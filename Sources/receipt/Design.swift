import ArgumentParser
import Foundation
import ReceiptKit
import ReceiptServer

struct Design: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Try templates in the browser: the daemon with its designer, a directory printer and a fresh token.",
    discussion: """
      Serves the web app (template designer with live preview, and the queue) on loopback and \
      prints its address with a one-time token; open it in a browser. Templates are read from and \
      saved to DIR (the previous version of a saved template is kept in DIR/.history). Jobs print \
      as PDF files into --work DIR/printed; the queue is --work DIR/queue.sqlite. Ctrl-C stops it.
      Example:
        receipt design Templates
      """
  )

  @Argument(help: "Templates directory (default: $RECEIPT_TEMPLATES, ./Templates, or the one shipped with receipt).")
  var templates: String?
  @Option(help: "Port to listen on on 127.0.0.1 (0 picks a free one).") var port: Int = 8632
  @Option(help: "Directory for printed receipts and the queue (default: receipt-design in the temporary directory).")
  var work: String?
  @Option(help: "The token the browser must give (default: a new random one).") var token: String?

  func run() async throws {
    try await reportingErrorsAsync {
      var choice = try TemplateChoice.parse([])
      choice.templates = templates
      let directory = try choice.directory()
      let workDirectory = URL(
        fileURLWithPath: work ?? FileManager.default.temporaryDirectory.appendingPathComponent("receipt-design").path)
      let printed = workDirectory.appendingPathComponent("printed")
      try FileManager.default.createDirectory(at: printed, withIntermediateDirectories: true)
      let token = self.token ?? Self.randomToken()
      var settings = ReceiptServer.Configuration.Settings()
      settings.host = "127.0.0.1"
      settings.port = port
      settings.database = workDirectory.appendingPathComponent("queue.sqlite").path
      settings.printers = ["preview": "dir:\(printed.path)"]
      settings.defaultPrinter = "preview"
      settings.tokens = [token]
      let configuration = try ReceiptServer.Configuration(settings, templates: directory)
      let server = try ReceiptServer(configuration: configuration)
      try await server.run { port in
        try? Console.out(
          "receipt design: http://127.0.0.1:\(port)/#token=\(token)\n"
            + "  templates: \(directory.path) (saved versions replaced go to .history/)\n"
            + "  printed receipts: \(printed.path)\n  Ctrl-C stops it.")
      }
    }
  }

  /// 128 random bits as hex.
  static func randomToken() -> String {
    var generator = SystemRandomNumberGenerator()
    return (0..<4).map { _ in String(format: "%08x", UInt32.random(in: .min ... .max, using: &generator)) }.joined()
  }
}
