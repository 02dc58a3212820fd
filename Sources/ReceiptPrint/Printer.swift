public import Foundation
package import ReceiptLayout
import ReceiptModel
package import ReceiptRender

/// A printer receipt can send to: a CUPS queue (``CUPSPrinter``), a raw ESC/POS printer on a
/// TCP port (``SocketPrinter``) or a directory that receives one PDF per job
/// (``DirectoryPrinter``). To add a printer kind, conform to this protocol and give it an address
/// type conforming to ``PrinterKind``, listed in ``PrinterAddress/kinds``.
///
/// Printing reads top to bottom: open the printer → ask its ``status()`` → lay out at
/// ``capabilities`` (resolution) → check the paper (``PrinterCapabilities/check(_:printer:)``)
/// → ``encode(_:job:)`` (draws and encodes in the printer's format) → ``send(_:of:job:)`` →
/// ``follow(job:timeout:)``. Encoding and sending are apart so that a caller can record that the
/// receipt's own work is done before its first byte goes out (the daemon does).
package protocol Printer: Sendable {
  /// The name users give it (a queue name, `socket://host:port`, `dir:PATH`).
  var name: String { get }
  /// What it takes: its format, resolution and paper.
  var capabilities: PrinterCapabilities { get }
  /// Its state now (``PrinterState/unknown`` for printers that cannot be asked).
  func status() throws -> PrinterStatus
  /// A laid-out receipt drawn and encoded in the printer's format (all copies).
  func encode(_ receipt: LaidOutReceipt, job: PrintJob) throws -> Data
  /// Sends an encoded receipt. Returns the printer's job id, or nil for printers without jobs
  /// (the bytes were delivered).
  func send(_ document: Data, of receipt: LaidOutReceipt, job: PrintJob) throws -> Int?
  /// Follows a job until it ends, the printer stops, or `timeout` passes.
  func follow(job id: Int, timeout: Duration) throws -> JobStatus
}

extension Printer {
  /// Encodes and sends a receipt.
  package func submit(_ receipt: LaidOutReceipt, job: PrintJob) throws -> Int? {
    try send(try encode(receipt, job: job), of: receipt, job: job)
  }

  /// The receipt in the printer's format, every copy (raw printers and CUPS queues).
  package func encode(_ receipt: LaidOutReceipt, job: PrintJob) throws -> Data {
    try capabilities.format.encode(receipt, copies: job.copies, model: job.model, caches: job.renderCaches)
  }

  /// Printers without job ids have nothing to follow.
  public func follow(job id: Int, timeout: Duration) throws -> JobStatus {
    JobStatus(id: id, state: .completed)
  }
}

extension PrintJob {
  /// Whether this job is sent as a ``ConfirmedPrint``.
  var confirmed: Bool { processID != nil && model?.confirmsPrints == true }

  /// How long a printer may take to print a receipt after its last byte: its length at the
  /// model's speed (100 mm/s when unknown), three times over, plus 30 s.
  func printingTime(_ receipt: LaidOutReceipt) -> TimeInterval {
    let millimetres = receipt.pages.reduce(0) { $0 + $1.cutLength * 25.4 / 72 } * Double(copies)
    return 30 + 3 * millimetres / Double(max(50, model?.speed ?? 100))
  }
}

/// What a printer takes.
public struct PrinterCapabilities: Sendable, Equatable {
  /// The format receipt sends.
  public var format: PrintPath
  /// Dots per inch to render at; nil keeps the document's (raw printers: the page setup says).
  public var resolution: Int?
  /// The paper sizes it takes; nil when it cannot be asked (nothing is checked).
  public var media: MediaSupport?

  /// Creates capabilities.
  public init(format: PrintPath, resolution: Int? = nil, media: MediaSupport? = nil) {
    self.format = format
    self.resolution = resolution
    self.media = media
  }

  /// Throws ``PrintError/mediaNotSupported(_:reason:)`` when a page does not fit the paper:
  /// checked on the layout, before anything is drawn.
  package func check(_ receipt: LaidOutReceipt, printer: String) throws {
    guard let media else { return }
    let width = receipt.pageSetup.paper.width.millimetres
    for page in receipt.pages {
      let length = Length.pt(page.cutLength).millimetres
      if let problem = media.problem(widthMillimetres: width, lengthMillimetres: length) {
        throw PrintError.mediaNotSupported(printer, reason: problem)
      }
    }
  }
}

/// A printer's state with its reasons.
public struct PrinterStatus: Sendable, Equatable, ExplainedState {
  /// The reasons' keywords (``ExplainedState``).
  public var reasonKeywords: [String] { reasons.map(\.rawValue) }

  public var state: PrinterState
  /// IPP `printer-state-reasons` without `none` (`media-empty`, `paused`, …).
  public var reasons: [PrinterStateReason]
  /// The printer's or operator's message.
  public var message: String
  /// Whether it takes new jobs (CUPS: `cupsaccept`/`cupsreject`).
  public var acceptingJobs: Bool

  /// Creates a status.
  public init(
    state: PrinterState, reasons: [PrinterStateReason] = [], message: String = "", acceptingJobs: Bool = true
  ) {
    self.state = state
    self.reasons = reasons
    self.message = message
    self.acceptingJobs = acceptingJobs
  }
}

/// One job to send.
public struct PrintJob: Sendable {
  /// The job's name: CUPS' job name, a directory printer's file name. The daemon puts its job id
  /// here to find the job again after a crash.
  public var name: String
  public var copies: Int
  /// Options passed to the printer as they are (CUPS `-o key=value`).
  public var options: [String: String]
  /// Send to a stopped printer anyway: it holds the job until resumed (the daemon does this and
  /// follows the job).
  public var holdWhenStopped: Bool
  /// The printer's model, when known: raw ESC/POS in its bands, drawer kicks on its pin.
  public var model: PrinterModel?
  /// Ask a raw printer whose model confirms prints (`process-id`) to confirm this receipt with
  /// this ID (four printable ASCII characters): `submit` returns only once the printer says it
  /// printed. Nil, or a model that cannot: the bytes are sent and that is all.
  public var processID: String?
  /// Asked while a raw printer is sent the receipt or its confirmation is awaited: true stops
  /// the print with ``PrintError/abandoned(_:)`` (the daemon is shutting down; whether the
  /// receipt printed is unknown).
  public var shouldStop: (@Sendable () -> Bool)?
  /// What drawing the receipt keeps between receipts: the sending engine's context.
  package var renderCaches = RenderCaches.process

  /// Creates a job.
  public init(
    name: String, copies: Int = 1, options: [String: String] = [:], holdWhenStopped: Bool = false,
    model: PrinterModel? = nil, processID: String? = nil, shouldStop: (@Sendable () -> Bool)? = nil
  ) {
    self.shouldStop = shouldStop
    self.model = model
    self.processID = processID
    self.name = name
    self.copies = copies
    self.options = options
    self.holdWhenStopped = holdWhenStopped
  }
}
