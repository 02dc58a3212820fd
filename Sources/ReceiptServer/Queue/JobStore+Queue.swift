import Foundation
import ReceiptKit

/// The queue's operations, written once for every store: each applies a rule of `Job+Rules`
/// through the store's primitives (which wake the printers the change gives work:
/// ``Job/printersToWake(from:to:)``).
extension JobStore {
  /// Stores a job durably (concurrent submissions may share one commit), or returns the job its
  /// idempotency key already names (`created` false).
  func accept(_ request: JobRequest, idempotencyKey: String?) async throws -> (job: Job, created: Bool) {
    guard case .job(let job, let created) = try await insert(.job(request, key: idempotencyKey)) else {
      throw StoreUnavailable(reason: "the store answered a job with an order")
    }
    return (job, created)
  }

  /// Stores an order and its tickets in one transaction (all or none), or returns the order its
  /// key names with its tickets (`created` false).
  func acceptOrder(_ request: OrderRequest, idempotencyKey: String?) async throws -> (
    order: Order, jobs: [Job], created: Bool
  ) {
    guard case .order(let order, let jobs, let created) = try await insert(.order(request, key: idempotencyKey)) else {
      throw StoreUnavailable(reason: "the store answered an order with a job")
    }
    return (order, jobs, created)
  }

  /// A new job printing `original` again, numbered after its earlier reprints, or the job an
  /// idempotency key already names (`created` false).
  func reprint(_ original: Job, idempotencyKey: String?) async throws -> (job: Job, created: Bool) {
    guard case .job(let job, let created) = try await insert(.reprint(of: original, key: idempotencyKey)) else {
      throw StoreUnavailable(reason: "the store answered a reprint with an order")
    }
    return (job, created)
  }

  /// The printer's head if it is due (``Job/claim(now:)``): `printing`, one more attempt.
  func claimNext(printer: String, now: Date = Date()) async throws -> Job? {
    guard let (job, claimed) = try await updateHead(of: printer, { $0.claim(now: now) }), claimed else { return nil }
    return job
  }

  /// When the printer's head is due (it waits for a retry); nil when its head is not queued: how
  /// long an idle worker sleeps unless woken.
  func nextDue(printer: String) async throws -> Date? {
    guard let head = try await head(of: printer), head.state == .queued else { return nil }
    return head.notBefore
  }

  /// Records that a job is about to be handed to a printer as `drawn` — the claimed job with
  /// ``Job/markSent(processID:now:)`` applied, which its receipt was drawn from — provided the
  /// stored job still gives that (``Job/recordSent(asDrawn:now:)``); returns it as stored. The
  /// rule's result is what the receipt says and what the store keeps, or the job is not sent:
  /// ``DrawnJobChanged`` when it changed since it was drawn.
  @discardableResult
  func recordSent(_ drawn: Job, now: Date = Date()) async throws -> Job {
    guard let (job, recorded) = try await update(drawn.id, { $0.recordSent(asDrawn: drawn, now: now) }) else {
      throw StoreUnavailable(reason: "job \(drawn.id) is not in the store")
    }
    guard recorded else { throw DrawnJobChanged(job: job) }
    return job
  }

  /// Records that a job was rendered and goes to its printer (``Job/markHandedOver(now:)``).
  func markHandedOver(_ id: String, now: Date = Date()) async throws {
    try await changed(id) { $0.markHandedOver(now: now) }
  }

  /// Records the CUPS job a `printing` job was sent as, and why it waits.
  func progress(_ id: String, cupsJobID: Int, printerState: String?, now: Date = Date()) async throws {
    try await changed(id) { $0.progress(cupsJobID: cupsJobID, printerState: printerState, now: now) }
  }

  /// Records that a job printed (with the hash of its archived document, if kept).
  func complete(
    _ id: String, cupsJobID: Int?, documentSHA256: String? = nil, now: Date = Date()
  ) async throws {
    try await changed(id) { $0.complete(cupsJobID: cupsJobID, documentSHA256: documentSHA256, now: now) }
  }

  /// Records a failed attempt: `retryAt` queues it again (and wakes its worker then), otherwise
  /// it ends in `state` (failed or dead).
  func fail(_ id: String, error: String, retryAt: Date?, state: Job.State, now: Date = Date()) async throws {
    try await changed(id) { $0.fail(error: error, retryAt: retryAt, state: state, now: now) }
  }

  /// Cancels a queued job; returns the job (canceled, or as it is when it had started), nil when
  /// there is none. A canceled head lets the job behind it print.
  func cancel(_ id: String, now: Date = Date()) async throws -> Job? {
    try await update(id, { $0.cancel(now: now) })?.0
  }

  /// A held job's document (IPP Send-Document): the job joins its printer's queue. Returns the
  /// job as stored and whether it was held; nil when there is no such job.
  func release(_ id: String, data: Data, documentFormat: DocumentFormat?, now: Date = Date()) async throws -> (
    Job, released: Bool
  )? {
    try await update(id, { $0.release(data: data, documentFormat: documentFormat, now: now) }).map {
      ($0.0, released: $0.changed)
    }
  }

  /// Fails a held job whose document did not come (``Job/abandon(reason:now:)``).
  func abandon(_ id: String, reason: String, now: Date = Date()) async throws -> Job? {
    try await update(id, { $0.abandon(reason: reason, now: now) })?.0
  }

  /// Puts a failed or dead job back in its queue; returns the job, nil when there is none.
  func retry(_ id: String, now: Date = Date()) async throws -> Job? {
    try await update(id, { $0.retry(now: now) })?.0
  }

  /// Sets a `printing` job back to `queued` (checked with its printer: it did not print).
  func requeue(_ id: String, now: Date = Date()) async throws {
    try await changed(id) { $0.requeue(now: now) }
  }

  /// Moves the printer's queued tickets that have a fallback printer there (``Job/failOver(from:reason:now:)``);
  /// returns them as moved.
  func failOver(printer: String, reason: String, now: Date = Date()) async throws -> [Job] {
    try await updateAll(printer: printer, state: .queued) { $0.failOver(from: printer, reason: reason, now: now) }
  }

  /// Takes `printer` for this daemon and puts the jobs its last driver left `printing` back at the
  /// head of the queue, to be checked with the printer before anything is sent again
  /// (``Job/recoverFromCrash(counted:maxCrashes:now:)``: a crash counts only if that driver did
  /// not stop cleanly). Nil while another daemon drives the printer.
  func own(printer: String, maxCrashes: Int, now: Date = Date()) async throws -> [Job]? {
    guard let lastStop = try await takeOwnership(of: printer) else { return nil }
    return try await updateAll(printer: printer, state: .printing) {
      $0.recoverFromCrash(counted: lastStop.countsCrashes, maxCrashes: maxCrashes, now: now)
      return true
    }
  }

  /// `update` of a job that must exist (the worker's own job).
  @discardableResult
  private func changed(_ id: String, _ change: @escaping @Sendable (inout Job) -> Void) async throws -> Job {
    guard
      let (job, _) = try await update(
        id,
        {
          change(&$0); return true
        })
    else {
      throw StoreUnavailable(reason: "job \(id) is not in the store")
    }
    return job
  }
}

/// A job changed between the drawing of its receipt and the record that it is sent (another
/// daemon, or a rule this worker did not expect, wrote it): nothing was sent, and the attempt
/// fails so that the job is drawn again from what is stored.
struct DrawnJobChanged: Error, CustomStringConvertible {
  let job: Job
  var description: String {
    "job \(job.id) changed while its receipt was drawn (now \(job.state.rawValue), attempt \(job.attempts), "
      + "\(job.interruptions) interruptions); nothing was sent, it is drawn again"
  }
}
