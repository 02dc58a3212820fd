import Foundation
import Logging
import ReceiptKit

extension PrintWorker {
  /// Sends a job to a CUPS queue at most once per CUPS job that can still print, then follows it.
  /// On a second attempt (a retry, or after a crash) CUPS' job history is asked first: a job of
  /// this name that completed means printed; one that is pending, held, processing or stopped is
  /// followed instead of sending another. One still waiting for its document (`job-incoming`:
  /// the send was cut off) is canceled. Only when every earlier one was canceled or aborted (or
  /// there is none) is the job sent again. If CUPS cannot be asked, nothing is sent. Every call
  /// to CUPS runs on the printer's thread.
  func printCUPS(_ job: Job, queue: String, server: String?) async throws -> Int {
    let name = Self.cupsJobName(job)
    let engine = self.engine
    var cupsID: Int?
    if job.attempts > 1 || job.cupsJobID != nil {
      let earlier = try await pool.run { try engine.cupsJobs(named: name, queue: queue, server: server) }
      if let printed = earlier.first(where: { $0.state == .completed }) {
        logger.info("job \(job.id) had printed as CUPS job \(printed.id); not sent again")
        return printed.id
      }
      for candidate in earlier.filter(\.state.isActive) {
        let status = try await pool.run { try engine.cupsJobStatus(candidate.id, queue: queue, server: server) }
        if status.reasons.contains("job-incoming") {
          // Sending its document was cut off (a crash mid-send): it cannot have printed.
          try await pool.run { try engine.cancelCUPSJob(candidate.id, queue: queue, server: server) }
          logger.info("job \(job.id): CUPS job \(candidate.id) never got its document; canceled, sending again")
        } else {
          cupsID = candidate.id
        }
      }
    }
    if cupsID == nil {
      let request = PrintRequest(
        printer: queue, copies: job.copies, server: server, jobName: name, holdWhenStopped: true,
        archive: archiver(job), model: printer.model)
      let prepared = try await prepare(job, request)
      await handedOver(job)
      cupsID = try await send(prepared)
    }
    guard let cupsID else { throw ReceiptError(.printer, "CUPS returned no job id for \(queue)") }
    try await store.progress(job.id, cupsJobID: cupsID, printerState: nil)
    return try await follow(job, cupsID: cupsID, queue: queue, server: server)
  }

  /// Polls the CUPS job until it ends. While it waits (a stopped queue, no paper) the reasons are
  /// recorded on the job; waiting costs no attempt. A stop leaves the job to reconciliation.
  private func follow(_ job: Job, cupsID: Int, queue: String, server: String?) async throws -> Int {
    let engine = self.engine
    var recorded: String?
    var interval = 0.1
    var waitingSince: Date?
    while true {
      let status = try await pool.run { try engine.cupsJobStatus(cupsID, queue: queue, server: server) }
      switch status.state {
      case .completed:
        return cupsID
      case .canceled:
        throw ReceiptError(.job, "CUPS job \(cupsID) was canceled on \(queue)", permanent: true)
      case .aborted:
        let why = status.explanation(or: "")
        throw ReceiptError(.job, "CUPS job \(cupsID) was aborted on \(queue)" + (why.isEmpty ? "" : ": \(why)"))
      case .processing:
        waitingSince = nil
      default:
        let reasons = ([status.state.rawValue] + status.reasonKeywords + [status.message]).filter { !$0.isEmpty }
          .joined(separator: ", ")
        if reasons != recorded {
          try await store.progress(job.id, cupsJobID: cupsID, printerState: reasons)
          recorded = reasons
        }
        // Held by a stopped queue for too long: a ticket with a fallback printer is taken back
        // (canceled in CUPS, which is confirmed) and printed there.
        let since = waitingSince ?? Date()
        waitingSince = since
        if job.fallback != nil, job.fallback != printer.name,
          Date().timeIntervalSince(since) >= outage.failoverAfter
        {
          let after = try await pool.run {
            try engine.cancelCUPSJob(cupsID, queue: queue, server: server)
            return try engine.cupsJobStatus(cupsID, queue: queue, server: server)
          }
          if after.state == .completed { return cupsID }
          if after.state == .canceled {
            throw FailOver(reason: "CUPS queue \(queue) held the job: \(reasons)")
          }
        }
      }
      if mustLeave { throw Interrupted() }
      await pause(interval)
      interval = min(1, interval * 1.5)
    }
  }
}
