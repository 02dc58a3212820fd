package import Foundation
package import ReceiptKit

extension ReceiptServer.Configuration {
  /// The settings of a configuration file, the environment or flags (see ``ReceiptSettings``).
  package typealias Settings = ReceiptSettings

  /// A configuration from settings; `templates` is used when the settings name no directory.
  package init(_ settings: Settings, templates: URL) throws {
    let printers = try (settings.printers ?? [:]).sorted { $0.key < $1.key }.map { name, target in
      guard let parsed = PrinterAddress.parse(target, bareQueues: false, server: settings.cupsServer) else {
        let forms = PrinterAddress.syntax
        throw ReceiptError(
          .data,
          "printer '\(name)': '\(target)' is not \(forms.dropLast().joined(separator: ", ")) or \(forms.last!)")
      }
      var model: PrinterModel?
      if let modelName = settings.printerModels?[name] {
        do {
          model = try PrinterModel.named(modelName)
        } catch {
          throw ReceiptError(.data, "printer '\(name)': \(error)")
        }
      }
      var paper: Paper?
      if let text = settings.printerPapers?[name] {
        guard let parsed = Paper(parsing: text) else {
          throw ReceiptError(.data, "printer '\(name)': paper '\(text)' is not a roll width such as 58mm or 80mm")
        }
        if let model, model.paper[parsed.name] == nil {
          throw ReceiptError(
            .data,
            "printer '\(name)': the model \(model.name) takes \(model.printHead.papers.joined(separator: " or ")), not \(text)"
          )
        }
        paper = parsed
      }
      let credentials = settings.printerCredentials?[name]
      if case .polled = parsed.delivery {
        let epson = parsed.kind is EpsonSDPPrinter.Address
        guard let model, model.commandSet == (epson ? "escpos" : "star") else {
          throw ReceiptError(
            .data,
            epson
              ? "printer '\(name)': a Server Direct Print printer needs an Epson model in printerModels (epson-tm-m30iii, epson-tm-t88vi)"
              : "printer '\(name)': a CloudPRNT printer needs a Star model in printerModels (star-mcprint3, star-tsp143iv)"
          )
        }
        guard let credentials, credentials.split(separator: ":", omittingEmptySubsequences: false).count >= 2,
          !credentials.hasPrefix(":"), !credentials.hasSuffix(":")
        else {
          throw ReceiptError(
            .data,
            "printer '\(name)' polls the daemon: give it printerCredentials USER:PASSWORD (the server authentication of its settings)"
          )
        }
      } else if credentials != nil {
        throw ReceiptError(
          .data,
          "printerCredentials names '\(name)', which does not poll the daemon (only cloudprnt: and epson-sdp: printers do)"
        )
      }
      return PrinterConfig(
        name: name, target: parsed, model: model, paper: paper, trimRoll: settings.printerTrimRoll?[name] ?? true,
        credentials: credentials)
    }
    let macs = printers.compactMap { printer -> String? in
      if case .polled(let device) = printer.target.delivery { return device }
      return nil
    }
    guard Set(macs).count == macs.count else {
      throw ReceiptError(.data, "two printers have the same CloudPRNT MAC address")
    }
    for name in (settings.printerCredentials ?? [:]).keys.sorted() where settings.printers?[name] == nil {
      throw ReceiptError(.data, "printerCredentials names '\(name)', which is not one of the printers")
    }
    for name in (settings.printerModels ?? [:]).keys.sorted() where settings.printers?[name] == nil {
      throw ReceiptError(.data, "printerModels names '\(name)', which is not one of the printers")
    }
    for name in (settings.printerPapers ?? [:]).keys.sorted() where settings.printers?[name] == nil {
      throw ReceiptError(.data, "printerPapers names '\(name)', which is not one of the printers")
    }
    for name in (settings.printerTrimRoll ?? [:]).keys.sorted() where settings.printers?[name] == nil {
      throw ReceiptError(.data, "printerTrimRoll names '\(name)', which is not one of the printers")
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
    documentDays = settings.documentDays ?? 7
    if let from = settings.mailFrom {
      guard MailMessage.isAddress(from) else {
        throw ReceiptError(.data, "mailFrom '\(from)' is not an e-mail address (receipts@shop.example)")
      }
      let command = settings.sendmail ?? ["/usr/sbin/sendmail"]
      guard let program = command.first, program.hasPrefix("/") else {
        throw ReceiptError(.data, "sendmail must be a command with an absolute path, such as [\"/usr/sbin/sendmail\"]")
      }
      mail = MailSettings(from: from, handoff: MailHandoff(command: command, directory: mailDirectory))
    } else if let name = printers.first(where: { if case .mail = $0.target.delivery { true } else { false } })?.name {
      throw ReceiptError(.data, "printer '\(name)' e-mails receipts: set mailFrom, the address they come from")
    }
    let printerNames = printers.map(\.name), routeNames = routes.map(\.name), templateDirectory = self.templates
    webhooks = try (settings.webhooks ?? [:]).reduce(into: [:]) { hooks, entry in
      hooks[entry.key] = try Webhook(
        name: entry.key, settings: entry.value, printers: printerNames, routes: routeNames,
        templates: templateDirectory)
    }
    pollTimeout = settings.pollTimeout ?? 30
    confirmTimeout = settings.confirmTimeout ?? 120
    guard pollTimeout > 0, confirmTimeout > 0, pollTimeout <= 86_400, confirmTimeout <= 86_400 else {
      throw ReceiptError(.data, "pollTimeout and confirmTimeout must be more than 0 and at most 86400 seconds")
    }
    if settings.ipp ?? true {
      // Beside the API: its port + 2 (8633), or a free one when the API takes a free one.
      let apiPort = settings.port ?? 8631
      ipp = IPPConfiguration(
        host: settings.ippHost ?? "127.0.0.1", port: settings.ippPort ?? (apiPort == 0 ? 0 : apiPort + 2),
        advertise: settings.ippAdvertise, maxDocumentBytes: settings.ippMaxDocumentBytes ?? 32 << 20)
      if let mode = settings.ippTLS {
        guard let encryption = IPPEncryption(rawValue: mode) else {
          throw ReceiptError(
            .data,
            "ippTLS is \(IPPEncryption.allCases.map(\.rawValue).joined(separator: ", ")), not '\(mode)'")
        }
        ipp?.encryption = encryption
      }
      guard (settings.ippCertificate == nil) == (settings.ippPrivateKey == nil) else {
        throw ReceiptError(
          .data, "ippCertificate and ippPrivateKey go together: give both PEM files, or neither for a self-signed one")
      }
      ipp?.certificate = settings.ippCertificate
      ipp?.privateKey = settings.ippPrivateKey
    }
  }
}
