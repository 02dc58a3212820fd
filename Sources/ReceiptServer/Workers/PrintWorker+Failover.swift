import Foundation
import Logging
import ReceiptKit
@_spi(Internals) import ReceiptModel

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

/// Since when and why a worker's printer cannot print (its state behind ``Locked``: the worker's
/// loop changes it, the failover reads it).
final class Outage: Sendable {
  let failoverAfter: TimeInterval
  private struct State {
    var since: Date?
    var reason = ""
    /// A failover happened in this outage: further tickets move after one failed attempt.
    var failedOver = false
  }
  private let state = Locked(State())

  init(failoverAfter: TimeInterval) {
    self.failoverAfter = failoverAfter
  }

  /// Since when the printer cannot print (nil: it can).
  var since: Date? { state.withLock { $0.since } }

  /// The printer failed (the outage starts now unless it had started).
  func begin(_ why: String) {
    state.withLock { state in
      if state.since == nil { state.since = Date() }
      state.reason = why
    }
  }

  /// A job printed: the printer works.
  func end() {
    state.withLock { state in
      state.since = nil
      state.failedOver = false
    }
  }

  /// Makes the outage due now (a CUPS queue already held the job for `failoverAfter`).
  func forceDue() { state.withLock { $0.failedOver = true } }

  func didFailOver() { state.withLock { $0.failedOver = true } }

  /// When an idle worker must wake to fail over (nil: no outage, or it failed over already and
  /// moves each new ticket after its failed attempt).
  var failoverDue: Date? {
    state.withLock { state in
      guard let since = state.since, !state.failedOver else { return nil }
      return since.addingTimeInterval(failoverAfter)
    }
  }

  /// The failover's reason when it is due now.
  func dueReason() -> String? {
    state.withLock { state in
      guard let since = state.since, state.failedOver || since.addingTimeInterval(failoverAfter) <= Date() else {
        return nil
      }
      let seconds = Date().timeIntervalSince(since).clampedInt()
      return "\(state.reason) (for \(seconds) s)"
    }
  }
}
