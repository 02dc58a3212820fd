package import Foundation
package import ReceiptKit

extension ReceiptServer.Configuration {
  /// The settings of a configuration file, the environment or flags (see ``ReceiptSettings``).
  package typealias Settings = ReceiptSettings

  /// A configuration from settings; `templates` is used when the settings name no directory.
  package init(_ settings: Settings, templates: URL) throws {
    let printers = try (settings.printers ?? [:]).sorted { $0.key < $1.key }.map { name, target in
      guard let parsed = PrinterTarget(parsing: target, server: settings.cupsServer) else {
        throw ReceiptError(
          .data,
          "printer '\(name)': '\(target)' is not cups:QUEUE, socket://HOST:PORT, usb:DEVICE, serial:DEVICE?baud=N or dir:PATH"
        )
      }
      var model: PrinterModel?
      if let modelName = settings.printerModels?[name] {
        do {
          model = try PrinterModel.named(modelName)
        } catch {
          throw ReceiptError(.data, "printer '\(name)': \(error)")
        }
      }
      return PrinterConfig(name: name, target: parsed, model: model)
    }
    for name in (settings.printerModels ?? [:]).keys.sorted() where settings.printers?[name] == nil {
      throw ReceiptError(.data, "printerModels names '\(name)', which is not one of the printers")
    }
    self.init(
      host: settings.host ?? "127.0.0.1", port: settings.port ?? 8631,
      database: settings.database ?? "receipt-queue.sqlite",
      templates: settings.templates.map { URL(fileURLWithPath: $0) } ?? templates, printers: printers,
      defaultPrinter: settings.defaultPrinter, maxAttempts: settings.maxAttempts ?? 20,
      maxBodyBytes: settings.maxBodyBytes ?? 1 << 20, tokens: settings.tokens ?? [],
      corsOrigins: settings.corsOrigins ?? [], shutdownGrace: settings.shutdownGrace ?? 10,
      hostNames: settings.hostNames ?? [], maxConnections: settings.maxConnections ?? 512,
      idleTimeout: settings.idleTimeout ?? 60, headerTimeout: settings.headerTimeout ?? 10,
      maxCrashes: settings.maxCrashes ?? 3)
    maxEventStreams = settings.maxEventStreams
    routes = settings.routes ?? []
    failoverAfter = settings.failoverAfter ?? 30
    archive = settings.archive.map { URL(fileURLWithPath: $0) }
    archiveDays = settings.archiveDays ?? 30
  }
}
