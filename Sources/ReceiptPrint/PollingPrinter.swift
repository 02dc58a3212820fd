public import Foundation
package import ReceiptLayout

/// A printer that fetches its jobs from the daemon (``PrinterDelivery/polled(device:)``: Star
/// CloudPRNT, Epson Server Direct Print): its state is known only from what it reports to the
/// daemon, and nothing can be sent to it — `receipt print` to one is
/// ``PrintError/pollsTheDaemon(_:)``. It still encodes: the daemon draws its jobs through it.
package protocol PollingPrinter: Printer {}

extension PollingPrinter {
  /// Unknown here: only what it reports to the daemon says.
  public func status() throws -> PrinterStatus {
    PrinterStatus(state: .unknown, message: "\(name) reports its state when it polls the daemon")
  }

  /// Refused: the printer fetches its jobs from the daemon.
  package func send(_ document: Data, of receipt: LaidOutReceipt, job: PrintJob) throws -> Int? {
    throw PrintError.pollsTheDaemon(name)
  }
}
