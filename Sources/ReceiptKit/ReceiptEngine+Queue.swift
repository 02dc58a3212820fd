import Foundation
import ReceiptPrint

/// A CUPS job's state: pending, held, processing, stopped, canceled, aborted or completed.
public typealias CUPSJobStatus = JobStatus

extension JobStatus {
  /// CUPS still has the job and may print it (pending, held, processing or stopped).
  public var isActive: Bool { ["pending", "held", "processing", "stopped"].contains(state) }
}

/// What the print-queue daemon asks CUPS about jobs it sent: it never sends a job again while
/// CUPS has one of that name that printed or may still print.
extension ReceiptEngine {
  /// The jobs on `queue` named exactly `name`, oldest first (CUPS' job history).
  public func cupsJobs(named name: String, queue: String, server: String?) throws -> [CUPSJobStatus] {
    do {
      return try CUPSClient(server: server).jobs(named: name, queue: queue)
    } catch let error as PrintError {
      throw ReceiptError(error)
    }
  }

  /// A job's state; while it waits on a stopped printer, the printer's reasons are added
  /// (e.g. `media-empty`, or the operator's stop message).
  public func cupsJobStatus(_ id: Int, queue: String, server: String?) throws -> CUPSJobStatus {
    do {
      let client = CUPSClient(server: server)
      var status = try client.status(ofJob: id, on: queue)
      if status.isActive, status.state != "processing" {
        let printer = try client.queue(named: queue)
        if printer.state == "stopped" {
          status.reasons += ["printer-stopped"] + printer.stateReasons.filter { $0 != "none" && $0 != "paused" }
          if status.message.isEmpty { status.message = printer.stateMessage }
        }
      }
      return status
    } catch let error as PrintError {
      throw ReceiptError(error)
    }
  }

  /// Cancels a CUPS job.
  public func cancelCUPSJob(_ id: Int, queue: String, server: String?) throws {
    do {
      try CUPSClient(server: server).cancel(job: id, on: queue)
    } catch let error as PrintError {
      throw ReceiptError(error)
    }
  }
}
