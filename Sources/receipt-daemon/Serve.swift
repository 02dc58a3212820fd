import ArgumentParser
import Foundation
import ReceiptCommandLine
import ReceiptKit
import ReceiptServer

struct Serve: AsyncParsableCommand {
  static let configuration = ServeOptions.configuration

  @OptionGroup var options: ServeOptions

  func run() async throws {
    try await reportingErrorsAsync {
      let environment = ProcessInfo.processInfo.environment
      var settings = ReceiptServer.Configuration.Settings()
      if let file = options.config ?? environment["RECEIPT_CONFIG"] {
        settings = try .init(file: URL(fileURLWithPath: file))
      }
      settings = settings.overridden(by: try .init(environment: environment))
      var flags = ReceiptServer.Configuration.Settings()
      flags.host = options.host
      flags.port = options.port
      flags.database = options.db
      flags.templates = options.templates
      if !options.printer.isEmpty {
        let parsed = try options.printer.map { try PrinterConfig.parse($0, setting: "--printer") }
        flags.printers = Dictionary(parsed.map { ($0.name, $0.target.description) }) { _, new in new }
        flags.defaultPrinter = parsed[0].name
      }
      flags.defaultPrinter = options.defaultPrinter ?? flags.defaultPrinter
      flags.maxAttempts = options.maxAttempts
      flags.tokens = options.token.isEmpty ? nil : options.token
      flags.corsOrigins = options.corsOrigin.isEmpty ? nil : options.corsOrigin
      flags.ippPort = options.ippPort
      flags.ippHost = options.ippHost
      if options.noIpp { flags.ipp = false }
      settings = try settings.overridden(by: flags).withCUPSQueuesIfNoPrinters()
      var choice = try TemplateChoice.parse([])
      choice.templates = settings.templates
      let configuration = try ReceiptServer.Configuration(settings, templates: try choice.directory())
      let server = try ReceiptServer(configuration: configuration)
      let names = configuration.printers.map(\.name).joined(separator: ", ")
      let queue =
        ReceiptSettings.isDatabaseURL(configuration.database)
        ? (try? PostgresURL(configuration.database).redacted) ?? "PostgreSQL" : configuration.database
      try await server.run { port in
        try? Console.out(
          "receipt serve: http://\(ListenAddress.uriHost(configuration.host)):\(port)/v1 with printers \(names), queue \(queue)"
        )
      } onIPPRunning: { port in
        let host = ListenAddress.uriHost(configuration.ipp?.host ?? "127.0.0.1")
        let encryption = configuration.ipp?.encryption ?? .off
        let tls = encryption == .optional ? ", and ipps:// on the same port" : ""
        try? Console.out(
          "receipt serve: \(encryption == .required ? "ipps" : "ipp")://\(host):\(port)/ipp/print/NAME for printers \(configuration.ippPrinterNames.joined(separator: ", ")) (IPP Everywhere, AirPrint\(tls))"
        )
      }
    }
  }
}
