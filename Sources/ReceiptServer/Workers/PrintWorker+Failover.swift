import Foundation
import Logging
import ReceiptKit
import ReceiptModel

/// Failover: while a printer cannot print — its raw status says paper out or cover open, sending
/// fails (unreachable, refused), or its CUPS queue holds the job (stopped) — for
/// `failoverAfter` seconds, the tickets queued for it that have a fallback printer (from their
/// route) move there, recording the printer they were meant for and why; they print with the
/// "for KITCHEN" banner (`$ticket.fallbackFor`). After a failover, each new ticket gets one
/// attempt at its own printer and moves at once if that fails, until a job prints there again.
/// The worker moves only its own printer's queued jobs, in its own task, so a job it is printing
/// is never also moved: nothing prints twice when the printer comes back.
extension PrintWorker {
  /// A CUPS job was taken back from a stopped queue (canceled, confirmed) to print elsewhere.
  struct FailOver: Error {
    var reason: String
  }

  /// Moves the queued tickets to their fallback when the outage has lasted long enough.
  func failOverIfDue() async {
    guard let reason = outage.dueReason() else { return }
    do {
      let moved = try await store.failOver(printer: printer.name, reason: reason)
      outage.didFailOver()
      for job in moved {
        metrics.countFailover(route: job.route ?? "")
        logger.warning(
          "job \(job.id) (route \(job.route ?? "-")) moved from \(printer.name) to \(job.printer): \(reason)")
      }
    } catch {
      logger.error("cannot move the jobs of \(printer.name) to their fallback: \(error)")
    }
  }
}

/// Since when and why a worker's printer cannot print.
// @unchecked: used by its worker's loop only, one step after another.
final class Outage: @unchecked Sendable {
  let failoverAfter: TimeInterval
  private(set) var since: Date?
  private var reason = ""
  /// A failover happened in this outage: further tickets move after one failed attempt.
  private var failedOver = false

  init(failoverAfter: TimeInterval) {
    self.failoverAfter = failoverAfter
  }

  /// The printer failed (the outage starts now unless it had started).
  func begin(_ why: String) {
    if since == nil { since = Date() }
    reason = why
  }

  /// A job printed: the printer works.
  func end() {
    since = nil
    failedOver = false
  }

  /// Makes the outage due now (a CUPS queue already held the job for `failoverAfter`).
  func forceDue() { failedOver = true }

  func didFailOver() { failedOver = true }

  /// When an idle worker must wake to fail over (nil: no outage, or it failed over already and
  /// moves each new ticket after its failed attempt).
  var failoverDue: Date? {
    guard let since, !failedOver else { return nil }
    return since.addingTimeInterval(failoverAfter)
  }

  /// The failover's reason when it is due now.
  func dueReason() -> String? {
    guard let since, failedOver || since.addingTimeInterval(failoverAfter) <= Date() else { return nil }
    let seconds = Date().timeIntervalSince(since).clampedInt()
    return "\(reason) (for \(seconds) s)"
  }
}
