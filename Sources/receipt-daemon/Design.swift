import ArgumentParser
import Foundation
import ReceiptCommandLine
import ReceiptKit
import ReceiptServer

struct Design: AsyncParsableCommand {
  static let configuration = DesignOptions.configuration

  @OptionGroup var options: DesignOptions

  func run() async throws {
    try await reportingErrorsAsync {
      var choice = try TemplateChoice.parse([])
      choice.templates = options.templates
      let directory = try choice.directory()
      let workDirectory = URL(
        fileURLWithPath: options.work
          ?? FileManager.default.temporaryDirectory.appendingPathComponent("receipt-design").path)
      let printed = workDirectory.appendingPathComponent("printed")
      try FileManager.default.createDirectory(at: printed, withIntermediateDirectories: true)
      let token = options.token ?? Self.randomToken()
      var settings = ReceiptServer.Configuration.Settings()
      settings.host = "127.0.0.1"
      settings.port = options.port
      settings.database = workDirectory.appendingPathComponent("queue.sqlite").path
      settings.printers = ["preview": "dir:\(printed.path)"]
      settings.defaultPrinter = "preview"
      settings.tokens = [token]
      // The designer is for trying templates: no IPP printers beside it.
      settings.ipp = false
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
