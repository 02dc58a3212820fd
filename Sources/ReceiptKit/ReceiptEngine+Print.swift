public import Foundation
import ReceiptLayout
import ReceiptPrint

/// What to print where.
public struct PrintRequest: Sendable {
  /// A CUPS queue name (or `cups:QUEUE`), `socket://host[:port]`, `dir:PATH`, or nil for the
  /// default CUPS queue (see ``PrinterAddress/open(_:server:)``).
  public var printer: String?
  public var copies: Int
  /// Follow the job until CUPS reports it completed (or stopped, canceled, aborted); for a raw
  /// printer whose model confirms prints, until the printer says the receipt printed.
  public var wait: Bool
  /// The CUPS server ("host:port"); nil for the default (CUPS_SERVER, client.conf).
  public var server: String?
  /// Job options passed to CUPS as they are (`-o key=value`).
  public var options: [String: String]
  /// The CUPS job name (default: `receipt-<random id> <title>`); the daemon puts its job id here
  /// to find the job again after a crash.
  public var jobName: String?
  /// Send to a stopped queue anyway: CUPS holds the job until the queue is resumed (the daemon
  /// does this and follows the job). Otherwise a stopped queue is an error.
  public var holdWhenStopped: Bool
  /// Called with a PDF of exactly what is sent (the same layout, at the printer's resolution)
  /// before it is sent; an error stops the print. The daemon keeps it as the job's archive.
  public var archive: (@Sendable (_ pdf: Data) throws -> Void)?
  /// The printer's model: ESC/POS in its band height, drawer kicks on its pin.
  public var model: PrinterModel?
  /// Ask a raw printer whose model confirms prints to confirm this receipt with this ID (four
  /// printable ASCII characters); printing returns only once it has (see ``PrintJob/processID``).
  public var processID: String?
  /// Asked while a raw printer is sent the receipt or its confirmation awaited: true gives the
  /// print up (see ``PrintJob/shouldStop``).
  public var shouldStop: (@Sendable () -> Bool)?

  /// Creates a request.
  public init(
    printer: String? = nil, copies: Int = 1, wait: Bool = false, server: String? = nil, options: [String: String] = [:],
    jobName: String? = nil, holdWhenStopped: Bool = false, archive: (@Sendable (_ pdf: Data) throws -> Void)? = nil,
    model: PrinterModel? = nil, processID: String? = nil, shouldStop: (@Sendable () -> Bool)? = nil
  ) {
    self.shouldStop = shouldStop
    self.processID = processID
    self.archive = archive
    self.model = model
    self.jobName = jobName
    self.holdWhenStopped = holdWhenStopped
    self.printer = printer
    self.copies = copies
    self.wait = wait
    self.server = server
    self.options = options
  }
}

/// What happened to a print.
public struct PrintResult: Sendable {
  /// The printer's job id (CUPS; nil for socket and directory printers).
  public var jobID: Int?
  public var printer: String
  public var path: PrintPath
  /// The job name, which carries the receipt id.
  public var jobName: String
  /// The final job status when waited for.
  public var status: JobStatus?
  /// A raw printer confirmed the receipt printed (`GS ( H`).
  public var confirmed = false
  public var pages: [PageMeasurement]
  /// What layout had to substitute (e.g. a font that is not installed).
  public var warnings: [String] = []
}

extension ReceiptEngine {
  /// Printers known to CUPS, with what receipt will send to each.
  public func printers(server: String? = nil) throws -> [PrinterQueue] {
    try ReceiptError.wrapping { try CUPSClient(server: server).queues() }
  }

  /// Printers that are not queues yet: what CUPS' backends find within `timeout` seconds and
  /// this machine's USB printer devices, each with the model guessed from its device id.
  public func discoverPrinters(timeout: Int, server: String? = nil) throws -> [DiscoveredDevice] {
    try ReceiptError.wrapping {
      let models = (try? PrinterModel.all()) ?? PrinterModel.shipped
      let local = LocalUSBPrinters.scan(models: models)
      let found = try CUPSClient(server: server).devices(timeout: timeout, models: models)
      // A USB printer CUPS also found is listed once, as CUPS names it.
      return found
        + local.filter { device in !found.contains { !device.deviceID.isEmpty && $0.deviceID == device.deviceID } }
    }
  }

  /// One CUPS queue with its state and capabilities.
  public func printer(named name: String, server: String? = nil) throws -> PrinterQueue {
    try ReceiptError.wrapping { try CUPSClient(server: server).queue(named: name) }
  }

  /// Opens the printer an address names (see ``PrinterAddress/open(_:server:)``).
  package func openPrinter(_ address: String?, server: String? = nil) throws -> any Printer {
    try ReceiptError.wrapping { try PrinterAddress.open(address, server: server) }
  }

  /// The state of the printer an address names (nil: the default CUPS queue), asked now: CUPS'
  /// queue state and reasons, a directory's availability, a raw printer's status in the protocol
  /// its `model` speaks (ESC/POS `DLE EOT` without a model, Star's `ESC ACK SOH` for a Star
  /// model), ``PrinterState/unknown`` where it cannot be asked. An address that cannot be opened
  /// throws a ``ReceiptError``; a printer that cannot be asked throws what it says.
  public func printerStatus(_ address: String?, server: String? = nil, model: PrinterModel? = nil) throws
    -> PrinterStatus
  {
    let printer = try openPrinter(address, server: server)
    if let raw = printer as? any RawStatusAsking, let asking = model?.statusProtocol {
      return raw.status(timeout: 1, asking: asking)
    }
    return try printer.status()
  }

  /// Prints a document, reading top to bottom: find the printer → is it ready → lay out at its
  /// resolution → check the paper against its media (before anything is drawn) → draw and
  /// encode → send → follow the job (when asked to wait). ``prepare(_:request:)`` and
  /// ``send(_:)`` are its two halves, for a caller that records something in between. A printer
  /// that streams (a raw socket taking ESC/POS, one copy, no confirmation, no archive) is sent
  /// each band as soon as it is drawn and encoded instead (``StreamingPrinter``).
  public func print(_ document: ReceiptDocument, request: PrintRequest) throws -> PrintResult {
    let planned = try plan(document, request: request)
    if request.archive == nil, let result = try stream(planned, request: request) { return result }
    return try send(
      try ReceiptError.wrapping {
        try prepare(planned.receipt, printer: planned.printer, request: request, name: planned.name)
      })
  }

  /// Everything before the first byte goes to the printer: the printer opened, the receipt laid
  /// out at its resolution, checked against its paper, archived (``PrintRequest/archive``), drawn
  /// and encoded.
  public func prepare(_ document: ReceiptDocument, request: PrintRequest) throws -> PreparedPrint {
    let planned = try plan(document, request: request)
    return try ReceiptError.wrapping {
      try prepare(planned.receipt, printer: planned.printer, request: request, name: planned.name)
    }
  }

  /// The printer opened and the receipt laid out at its resolution.
  private func plan(_ document: ReceiptDocument, request: PrintRequest) throws
    -> (printer: any Printer, receipt: LaidOutReceipt, name: String)
  {
    guard (1...99).contains(request.copies) else { throw ReceiptError(.data, "copies must be between 1 and 99") }
    let receiptID = String(UUID().uuidString.prefix(8)).lowercased()
    return try ReceiptError.wrapping {
      let printer = try PrinterAddress.open(request.printer, server: request.server)
      let capabilities = printer.capabilities
      var document = document
      if let dpi = capabilities.resolution { document.pageSetup.resolution = Resolution(dpi: dpi) }
      document.pageSetup.monochrome = capabilities.format != .pdf
      let laidOut = try layout(document)
      return (printer, laidOut, request.jobName ?? "receipt-\(receiptID) \(document.title)")
    }
  }

  /// Prints a laid-out receipt band by band as it is drawn, when its printer streams this job;
  /// nil when it does not (the caller encodes the whole receipt and sends it).
  private func stream(
    _ planned: (printer: any Printer, receipt: LaidOutReceipt, name: String), request: PrintRequest
  ) throws -> PrintResult? {
    try ReceiptError.wrapping {
      let (printer, laidOut) = (planned.printer, planned.receipt)
      let job = job(request, name: planned.name)
      guard printer.streams(job) else { return nil }
      try printer.capabilities.check(laidOut, printer: printer.name)
      guard try printer.stream(laidOut, job: job) else { return nil }
      return PrintResult(
        jobID: nil, printer: printer.name, path: printer.capabilities.format, jobName: job.name, status: nil,
        confirmed: false,
        pages: laidOut.pages.map { PageMeasurement(page: $0, resolution: laidOut.pageSetup.resolution) },
        warnings: laidOut.warnings)
    }
  }

  /// Sends a prepared receipt and, when asked, follows its job to the end.
  public func send(_ prepared: PreparedPrint) throws -> PrintResult {
    try ReceiptError.wrapping {
      let (printer, job) = (prepared.printer, prepared.job)
      let id = try printer.send(prepared.document, of: prepared.receipt, job: job)
      var result = PrintResult(
        jobID: id, printer: printer.name, path: printer.capabilities.format, jobName: job.name, status: nil,
        confirmed: job.processID != nil && job.model?.confirmsPrints == true, pages: prepared.pages,
        warnings: prepared.receipt.warnings)
      if prepared.wait, let id {
        let status = try printer.follow(job: id, timeout: .seconds(120))
        result.status = status
        guard status.state == .completed else {
          throw PrintError.jobFailed(
            id: id, state: status.state.rawValue, reason: status.explanation(or: "no reason given"))
        }
      }
      return result
    }
  }
}

/// A receipt ready to go to its printer: laid out, checked, drawn and encoded.
public struct PreparedPrint: Sendable {
  let printer: any Printer
  let job: PrintJob
  let receipt: LaidOutReceipt
  let document: Data
  let wait: Bool
  let resolution: Resolution

  /// The receipt in its printer's format, every copy: what is sent, or what a printer that
  /// polls fetches.
  public var encoded: Data { document }

  /// The same receipt encoded for another path — a printer that fetches its job in a format it
  /// chooses (CloudPRNT's `image/png`).
  public func encoded(as path: PrintPath) throws -> Data {
    try ReceiptError.wrapping {
      try path.encode(receipt, copies: job.copies, model: job.model, caches: job.renderCaches)
    }
  }

  /// Its pages' measurements.
  public var pages: [PageMeasurement] {
    receipt.pages.map { PageMeasurement(page: $0, resolution: resolution) }
  }
}

extension ReceiptEngine {
  /// A process ID for one print attempt: four characters from 0-9 and A-Z (a late answer to an
  /// earlier attempt is not taken for this one's).
  public static func processID() -> String {
    let characters = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    return String((0..<4).map { _ in characters.randomElement()! })
  }
}
