import Foundation
import ReceiptCommandLine
import ReceiptKit

extension Print {
  /// `--routes FILE`: every ticket the file's routes make of the order, each on its route's
  /// printer (the file is a daemon configuration file: its `printers`, `printerModels`, `routes`,
  /// `templates` and `cupsServer` are used). A ticket that cannot print is reported and the
  /// others still print; the exit code is then the first failure's.
  func printTickets(routesFile: String) throws {
    let settings = try ReceiptSettings(file: URL(fileURLWithPath: routesFile))
    let routes = settings.routes ?? []
    guard !routes.isEmpty else { throw ReceiptError(.data, "\(routesFile) has no \"routes\"; see the README") }
    var choice = template
    if choice.templates == nil { choice.templates = settings.templates }
    let templates = try choice.directory()
    let printers = settings.printers ?? [:]
    try ReceiptEngine.checkRoutes(routes, printers: printers.keys.sorted(), templates: templates)
    let data = try readInput(input)
    let tickets = try ReceiptEngine.tickets(for: data, routes: routes, templates: templates)
    guard !tickets.isEmpty else { throw ReceiptError(.data, "no route prints this order: their filters left no items") }
    let engine = try ReceiptEngine()
    var firstFailure: ReceiptError?
    for ticket in tickets {
      let route = ticket.route
      do {
        guard
          let target = PrinterAddress.parse(printers[route.printer]!, bareQueues: false, server: settings.cupsServer)
        else {
          throw ReceiptError(
            .data, "printer '\(route.printer)': '\(printers[route.printer]!)' is not a printer address")
        }
        let model = try settings.printerModels?[route.printer].map { try PrinterModel.named($0) }
        var options = TemplateOptions(locale: template.locale, strict: template.strict, printHead: model?.printHead)
        options.modelName = model?.name
        options.variables = TemplateOptions.ticketVariables(
          route: route.name, label: route.displayLabel, fallbackFor: nil, reprint: 0)
        let rendered = try engine.templateDocument(
          template: route.template, data: ticket.data, templates: templates, options: options)
        for warning in rendered.warnings { Console.error("receipt: warning: \(route.name): \(warning)") }
        let request = PrintRequest(
          printer: target.address, copies: ticket.copies * copies, wait: wait, server: target.server, model: model)
        let result = try engine.print(rendered.document, request: request)
        let length = result.pages.map { String(format: "%.1f mm", $0.cutLengthMillimetres) }.joined(separator: ", ")
        try Console.out(
          "\(route.name): " + (result.jobID.map { "\(result.printer)-\($0)" } ?? "sent to \(result.printer)")
            + " (\(result.path.rawValue), \(length))")
      } catch let error as ReceiptError {
        Console.error("receipt: \(route.name): \(error.message)")
        firstFailure = firstFailure ?? error
      }
    }
    if let firstFailure { throw firstFailure }
  }
}
