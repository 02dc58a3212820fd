internal import CCups
import Foundation

extension CUPSClient {
  /// Jobs on the queue named exactly `name`, oldest first, from CUPS' job history
  /// (cupsGetJobs2, all jobs): how the daemon finds a job it sent before a crash or a retry.
  public func jobs(named name: String, queue: String) throws -> [JobStatus] {
    var jobs: UnsafeMutablePointer<cups_job_t>?
    let count = LibCUPS.cupsGetJobs2(nil, &jobs, queue, 0, CUPS_WHICHJOBS_ALL)
    defer { LibCUPS.cupsFreeJobs(count, jobs) }
    guard count >= 0 else {
      if LibCUPS.cupsLastError() == IPP_STATUS_ERROR_NOT_FOUND {
        throw PrintError.unknownPrinter(queue, known: (try? queues().map(\.name)) ?? [])
      }
      throw PrintError.serverUnavailable(server: server, reason: LibCUPS.lastErrorMessage)
    }
    return (0..<Int(count)).compactMap { i -> JobStatus? in
      let job = jobs![i]
      guard let title = job.title, String(cString: title) == name else { return nil }
      return JobStatus(id: Int(job.id), state: JobState(ipp: Int(job.state.rawValue)))
    }.sorted { $0.id < $1.id }
  }

  /// Cancels a job (the daemon cancels a job whose document never arrived before sending again).
  public func cancel(job id: Int, on queue: String) throws {
    guard LibCUPS.cupsCancelJob2(nil, queue, Int32(id), 0) == IPP_STATUS_OK else {
      throw PrintError.rejected("cannot cancel job \(id): \(LibCUPS.lastErrorMessage)")
    }
  }

  /// A job's state; while it waits on a stopped queue, the queue's reasons are added
  /// (`printer-stopped`, `media-empty`, or the operator's message). One request, two when the
  /// job waits.
  public func jobStatus(_ id: Int, on queue: String) throws -> JobStatus {
    var status = try self.status(ofJob: id, on: queue)
    if status.state.isActive, status.state != .processing {
      let now = try self.queue(named: queue)
      if now.state == .stopped {
        status.reasons += ["printer-stopped"] + now.stateReasons.filter { $0 != "paused" }
        if status.message.isEmpty { status.message = now.stateMessage }
      }
    }
    return status
  }
}
