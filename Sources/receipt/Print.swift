import ArgumentParser
import Foundation
import ReceiptCommandLine
import ReceiptKit

struct Print: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Print a receipt at exactly its cut length.",
    discussion: """
      Sends PWG raster to IPP Everywhere queues, CUPS raster to driver queues \
      and ESC/POS to raw queues or socket://host:9100 printers, never scaled, \
      cropped or split. Prints the job id.

      Examples:
        receipt print Templates/Examples/small.json --printer Roll80 --wait
        receipt print order.json --template kitchen \\
          --printer socket://10.0.0.42:9100
        receipt print order.json --routes /etc/receipt/serve.json
          (every ticket its routes make: counter, kitchen, bar)
        receipt print ticket.pdf --printer socket://10.0.0.42:9100 \\
          --model epson-tm-t88vi
      """
  )

  @Argument(
    help:
      "The input: order JSON (bound into a template; - for stdin), a UTF-8 text file, or a document (.pdf, .pwg, .urf, .jpg, .png) printed on the roll at its own length.",
    completion: .file()
  )
  var input: String

  @Option(help: "CUPS queue, or socket://host[:port] for a raw ESC/POS printer (default: the CUPS default).")
  var printer: String?

  @Option(help: "Number of copies (1…99).")
  var copies: Int = 1

  @Flag(help: "Wait until CUPS reports the job completed; exit 75 if it stops, is canceled or aborted.")
  var wait = false

  @Option(name: .customShort("o"), help: "A CUPS job option passed as it is, e.g. -o job-priority=80 (repeatable).")
  var jobOptions: [String] = []

  @Option(
    help:
      "A daemon configuration file with printers and routes: print every ticket its routes make of the order (counter, kitchen, bar)."
  )
  var routes: String?

  @OptionGroup var template: TemplateChoice
  @OptionGroup var page: PageOptions

  func validate() throws {
    if let printer, printer.hasPrefix("socket://"), !PrinterAddress.isValidSocket(printer) {
      throw ValidationError(
        "'\(printer)' is not a printer address: write socket://HOST:PORT with a port from 1 to 65535")
    }
    guard (1...99).contains(copies) else { throw ValidationError("--copies must be 1…99") }
    if routes != nil, printer != nil {
      throw ValidationError("--routes prints each ticket on its route's printer; leave out --printer")
    }
  }

  func run() throws {
    try reportingErrors {
      if let routes { return try printTickets(routesFile: routes) }
      let engine = try ReceiptEngine()
      var options: [String: String] = [:]
      for option in jobOptions {
        let parts = option.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2, !parts[0].isEmpty else {
          throw ValidationError("-o takes key=value, not '\(option)'")
        }
        options[parts[0]] = parts[1]
      }
      let request = PrintRequest(
        printer: printer, copies: copies, wait: wait, options: options, model: try page.printerModel())
      let result: PrintResult
      if let format = Self.documentFormat(input) {
        let data = try Self.readDocument(input)
        guard let paper = Paper(parsing: page.paper) else {
          throw ValidationError("unknown paper '\(page.paper)': use 58mm, 80mm, 112mm or a width like 76mm")
        }
        var named = request
        named.jobName = URL(fileURLWithPath: input).lastPathComponent
        result = try engine.send(
          try engine.prepareDocument(data, format: format, options: DocumentPrintOptions(paper: paper), request: named))
      } else {
        result = try engine.print(try page.document(input, engine: engine, template: template), request: request)
      }
      for warning in result.warnings { Console.error("receipt: warning: \(warning)") }
      let length = result.pages.map { String(format: "%.1f mm", $0.cutLengthMillimetres) }.joined(separator: ", ")
      if let id = result.jobID {
        try Console.out("\(result.printer)-\(id) (\(result.path.rawValue), \(length))\(wait ? " completed" : "")")
      } else {
        try Console.out(
          "\(result.confirmed ? "printed on" : "sent to") \(result.printer) (\(result.path.rawValue), \(length))"
            + (result.confirmed ? ", confirmed by the printer" : ""))
      }
    }
  }
}

extension Print {
  /// The document format of a file printed as pages (PDF, raster, image), by its extension.
  static func documentFormat(_ path: String) -> DocumentFormat? {
    switch URL(fileURLWithPath: path).pathExtension.lowercased() {
    case "pdf": .pdf
    case "pwg": .pwgRaster
    case "urf": .urf
    case "jpg", "jpeg": .jpeg
    case "png": .png
    default: nil
    }
  }

  /// A document file, within 64 MiB.
  static func readDocument(_ path: String) throws -> Data {
    let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
    guard let size else { throw ReceiptError(.input, "cannot read \(path): no such file or not readable") }
    guard size <= 64 << 20 else {
      throw ReceiptError(.data, "\(path) is \(size) bytes; a document to print is limited to 64 MiB")
    }
    guard let data = FileManager.default.contents(atPath: path) else {
      throw ReceiptError(.input, "cannot read \(path): not readable")
    }
    return data
  }
}

struct Printers: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "List CUPS printers with state, formats, media, resolutions and the path receipt uses.",
    discussion: """
      With --discover: the printers CUPS' backends find (usb, dnssd, snmp, \
      socket, …) and this machine's USB printer devices, with the printer \
      model guessed from each device id.

      Examples:
        receipt printers --json
        receipt printers --discover --timeout 5
      """
  )

  @Flag(help: "Print JSON.")
  var json = false

  @Flag(help: "Find printers that are not queues yet (CUPS backends and local USB devices).")
  var discover = false

  @Option(help: "Seconds the CUPS backends may search with --discover.")
  var timeout: Int = 10

  func run() throws {
    try reportingErrors {
      if discover { return try discoverDevices() }
      let queues = try ReceiptEngine().printers()
      if json {
        try Console.json(queues)
        return
      }
      if queues.isEmpty { try Console.out("no printers (add one with lpadmin)") }
      for q in queues {
        try Console.out(
          "\(q.name)\(q.isDefault ? " (default)" : ""): \(q.state)\(q.acceptingJobs ? "" : ", rejecting jobs")"
            + (q.stateReasons.isEmpty ? "" : " [\(q.stateReasons.joined(separator: ", "))]"))
        try Console.out("  path: \(q.path.rawValue)   device: \(q.deviceURI)   model: \(q.makeAndModel)")
        try Console.out("  formats: \(q.formats.joined(separator: ", "))")
        if !q.resolutions.isEmpty {
          try Console.out("  resolutions: \(q.resolutions.map { "\($0)dpi" }.joined(separator: ", "))")
        }
        if !q.media.isEmpty { try Console.out("  media: \(q.media.joined(separator: ", "))") }
      }
    }
  }

  private func discoverDevices() throws {
    guard (1...120).contains(timeout) else { throw ValidationError("--timeout must be 1 to 120 seconds") }
    let devices = try ReceiptEngine().discoverPrinters(timeout: timeout)
    if json {
      try Console.json(devices)
      return
    }
    if devices.isEmpty { try Console.out("no printers found (is the printer on, connected and powered?)") }
    for device in devices {
      try Console.out("\(device.uri)   [\(device.source), \(device.deviceClass)]")
      let name = device.makeAndModel.isEmpty ? device.info : device.makeAndModel
      try Console.out("  \(name)\(device.model.map { "   model: \($0) (--model \($0))" } ?? "")")
      if !device.location.isEmpty { try Console.out("  location: \(device.location)") }
    }
  }
}
