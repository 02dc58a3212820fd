import Foundation
import ReceiptPrint

/// What the print-queue daemon asks a CUPS queue about jobs it sent: it never sends a job again
/// while CUPS has one of that name that printed or may still print. Every call maps printing's
/// errors to ``ReceiptError`` (retried unless permanent).
extension ReceiptEngine {
  /// The jobs on `queue` named exactly `name`, oldest first (CUPS' job history).
  public func cupsJobs(named name: String, queue: String, server: String?) throws -> [JobStatus] {
    try ReceiptError.wrapping { try CUPSClient(server: server).jobs(named: name, queue: queue) }
  }

  /// A job's state; while it waits on a stopped printer, the printer's reasons are added
  /// (e.g. `media-empty`, or the operator's stop message).
  public func cupsJobStatus(_ id: Int, queue: String, server: String?) throws -> JobStatus {
    try ReceiptError.wrapping { try CUPSClient(server: server).jobStatus(id, on: queue) }
  }

  /// Cancels a CUPS job.
  public func cancelCUPSJob(_ id: Int, queue: String, server: String?) throws {
    try ReceiptError.wrapping { try CUPSClient(server: server).cancel(job: id, on: queue) }
  }
}
