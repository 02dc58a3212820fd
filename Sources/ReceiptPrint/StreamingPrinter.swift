public import Foundation
package import ReceiptLayout

/// A printer that takes a receipt while it is still being drawn: a raw socket printer starts
/// feeding paper on the first band instead of waiting for the whole receipt to be drawn and
/// encoded. To let a printer kind stream, conform it to this protocol.
package protocol StreamingPrinter: Printer {
  /// Connects, calls `produce` with a function that sends bytes (each call blocks until the
  /// printer has taken them, within the printer's timeouts), and disconnects when it returns.
  func sendStreaming(job: PrintJob, _ produce: (_ send: (Data) throws -> Void) throws -> Void) throws
}

extension Printer {
  /// Whether ``stream(_:job:)`` would stream this job: a streaming printer taking ESC/POS (not
  /// Star raster), one copy, and no confirmation asked of the printer (a confirmed print waits
  /// for the printer's answer over the same connection).
  public func streams(_ job: PrintJob) -> Bool {
    self is any StreamingPrinter && capabilities.format == .escpos && job.copies == 1 && !job.confirmed
      && PrintPath.streams(model: job.model)
  }

  /// Sends a receipt band by band as it is drawn (``PrintPath/streamESCPOS(_:model:rows:caches:send:)``)
  /// when ``streams(_:)``; false when the caller must encode it whole and send it.
  package func stream(_ receipt: LaidOutReceipt, job: PrintJob) throws -> Bool {
    guard streams(job), let printer = self as? any StreamingPrinter else { return false }
    try printer.sendStreaming(job: job) { send in
      try PrintPath.streamESCPOS(receipt, model: job.model, caches: job.renderCaches, send: send)
    }
    return true
  }
}
