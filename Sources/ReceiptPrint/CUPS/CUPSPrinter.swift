public import Foundation
package import ReceiptLayout

/// A CUPS queue as a ``Printer``: its capabilities and state come from one Get-Printer-Attributes
/// request when it is opened; jobs go through ``CUPSClient``.
public struct CUPSPrinter: Printer {
  /// The queue as CUPS described it when opened.
  public let queue: PrinterQueue
  let client: CUPSClient

  /// Opens the queue `name` (nil: the default queue) on `server` (nil: CUPS_SERVER, client.conf).
  public init(queue name: String?, server: String? = nil) throws {
    let client = CUPSClient(server: server)
    self.client = client
    queue = try name.map { try client.queue(named: $0) } ?? client.defaultQueue()
  }

  public var name: String { queue.name }
  public var capabilities: PrinterCapabilities { queue.capabilities }

  /// The queue's state now (asked again, not the state at opening).
  public func status() throws -> PrinterStatus { try client.queue(named: queue.name).status }

  package func send(_ document: Data, of receipt: LaidOutReceipt, job: PrintJob) throws -> Int? {
    if queue.state == .stopped, !job.holdWhenStopped {
      throw PrintError.printerNotReady(
        queue.name, reason: "stopped (\(queue.status.explanation(or: "the queue is stopped")))")
    }
    return try client.submit(
      document, format: capabilities.format.mimeType, to: queue, jobName: job.name, options: job.options)
  }

  public func follow(job id: Int, timeout: Duration) throws -> JobStatus {
    try client.wait(forJob: id, on: queue.name, timeout: timeout)
  }

  /// A job's state, with the queue's reasons while it waits on a stopped queue.
  public func jobStatus(_ id: Int) throws -> JobStatus { try client.jobStatus(id, on: queue.name) }

  /// Jobs named exactly `name`, oldest first, from CUPS' job history: how the daemon finds a job
  /// it sent before a crash or a retry.
  public func jobs(named name: String) throws -> [JobStatus] {
    try client.jobs(named: name, queue: queue.name)
  }

  /// Cancels a job.
  public func cancel(job id: Int) throws { try client.cancel(job: id, on: queue.name) }
}
