import Foundation
import ReceiptLayout
import ReceiptPrint
import ReceiptRender

/// What to print where.
public struct PrintRequest: Sendable {
  /// A CUPS queue name, `socket://host[:port]`, or nil for the default queue.
  public var printer: String?
  public var copies: Int
  /// Follow the job until CUPS reports it completed (or stopped, canceled, aborted).
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

  /// Creates a request.
  public init(
    printer: String? = nil, copies: Int = 1, wait: Bool = false, server: String? = nil, options: [String: String] = [:],
    jobName: String? = nil, holdWhenStopped: Bool = false
  ) {
    self.jobName = jobName
    self.holdWhenStopped = holdWhenStopped
    self.printer = printer
    self.copies = copies
    self.wait = wait
    self.server = server
    self.options = options
  }
}

/// Printer addresses as users write them.
public enum PrinterAddress {
  /// Whether `socket://HOST[:PORT]` names a host and a port from 1 to 65535.
  public static func isValidSocket(_ uri: String) -> Bool {
    guard let socket = SocketPrinter(uri: uri) else { return false }
    return socket.port > 0
  }
}

/// What happened to a print.
public struct PrintResult: Sendable {
  /// The CUPS job id (nil for socket printers).
  public var jobID: Int?
  public var printer: String
  public var path: PrintPath
  /// The job name, which carries the receipt id.
  public var jobName: String
  /// The final job status when waited for.
  public var status: JobStatus?
  public var pages: [PageMeasurement]
  /// What layout had to substitute (e.g. a font that is not installed).
  public var warnings: [String] = []
}

extension ReceiptEngine {
  /// Printers known to CUPS, with what receipt will send to each.
  public func printers(server: String? = nil) throws -> [PrinterQueue] {
    do {
      return try CUPSClient(server: server).queues()
    } catch let error as PrintError {
      throw ReceiptError(error)
    }
  }

  /// One CUPS queue with its state and capabilities.
  public func printer(named name: String, server: String? = nil) throws -> PrinterQueue {
    do {
      return try CUPSClient(server: server).queue(named: name)
    } catch let error as PrintError {
      throw ReceiptError(error)
    }
  }

  /// Lays out, renders for the printer's path and resolution, and sends the receipt.
  public func print(_ document: ReceiptDocument, request: PrintRequest) throws -> PrintResult {
    guard (1...99).contains(request.copies) else { throw ReceiptError(.data, "copies must be between 1 and 99") }
    let receiptID = String(UUID().uuidString.prefix(8)).lowercased()
    let jobName = request.jobName ?? "receipt-\(receiptID) \(document.title)"
    do {
      if let uri = request.printer, uri.hasPrefix("socket://") {
        guard let socket = SocketPrinter(uri: uri) else {
          throw ReceiptError(
            .data, "'\(uri)' is not a printer address: write socket://HOST:PORT with a port from 1 to 65535",
            permanent: true)
        }
        let (bytes, pages, warnings) = try render(document, path: .escpos, copies: request.copies)
        try socket.send(bytes)
        return PrintResult(
          jobID: nil, printer: uri, path: .escpos, jobName: jobName, status: nil, pages: pages, warnings: warnings)
      }
      let client = CUPSClient(server: request.server)
      let queue = try request.printer.map { try client.queue(named: $0) } ?? client.defaultQueue()
      if queue.state == "stopped", !request.holdWhenStopped {
        let reason = ([queue.stateMessage] + queue.stateReasons).filter { !$0.isEmpty }.joined(separator: ", ")
        throw PrintError.printerNotReady(
          queue.name, reason: reason.isEmpty ? "the queue is stopped" : "stopped (\(reason))")
      }
      var document = document
      if queue.path != .escpos, let dpi = queue.preferredResolution {
        document.pageSetup.resolution = Resolution(dpi: dpi)
      }
      let (bytes, pages, warnings) = try render(document, path: queue.path, copies: request.copies)
      if queue.path != .escpos {
        let media = MediaSupport(names: queue.media)
        let width = document.pageSetup.paper.width.millimetres
        for page in pages {
          if let problem = media.problem(widthMillimetres: width, lengthMillimetres: page.cutLengthMillimetres) {
            throw PrintError.mediaNotSupported(queue.name, reason: problem)
          }
        }
      }
      let id = try client.submit(
        bytes, format: queue.path.mimeType, to: queue, jobName: jobName, options: request.options)
      var result = PrintResult(
        jobID: id, printer: queue.name, path: queue.path, jobName: jobName, status: nil, pages: pages,
        warnings: warnings)
      if request.wait {
        let status = try client.wait(forJob: id, on: queue.name)
        result.status = status
        guard status.state == "completed" else {
          let reason = ([status.message] + status.reasons).filter { !$0.isEmpty }.joined(separator: ", ")
          throw PrintError.jobFailed(id: id, state: status.state, reason: reason.isEmpty ? "no reason given" : reason)
        }
      }
      return result
    } catch let error as PrintError {
      throw ReceiptError(error)
    }
  }

  /// The document bytes for a path, all copies included (pages repeated), and the page sizes.
  private func render(_ document: ReceiptDocument, path: PrintPath, copies: Int) throws -> (
    Data, [PageMeasurement], [String]
  ) {
    let laidOut = try layout(document)
    let measurements = laidOut.pages.map { PageMeasurement(page: $0, resolution: document.pageSetup.resolution) }
    do {
      let pages = try RasterRenderer().render(laidOut)
      let allPages = Array(repeating: pages, count: copies).flatMap { $0 }
      switch path {
      case .pwgRaster:
        return (
          try PWGRasterWriter(mode: .pwg).encode(allPages, setup: document.pageSetup), measurements, laidOut.warnings
        )
      case .cupsRaster:
        return (
          try PWGRasterWriter(mode: .cups).encode(allPages, setup: document.pageSetup), measurements, laidOut.warnings
        )
      case .escpos:
        var copiesOf = laidOut
        copiesOf.pages = Array(repeating: laidOut.pages, count: copies).flatMap { $0 }
        return (ESCPOSEncoder().encode(allPages, receipt: copiesOf), measurements, laidOut.warnings)
      }
    } catch let error as RenderError {
      throw ReceiptError(error)
    } catch {
      throw ReceiptError(.render, "\(error)")
    }
  }
}

extension ReceiptError {
  /// A printing failure: a job that ended unprinted is a `.job` error, the rest `.printer`;
  /// an unknown printer and media that does not fit are permanent.
  init(_ error: PrintError) {
    switch error {
    case .jobFailed: self.init(.job, "\(error)")
    case .unknownPrinter, .noDefaultPrinter, .mediaNotSupported: self.init(.printer, "\(error)", permanent: true)
    default: self.init(.printer, "\(error)")
    }
  }
}
