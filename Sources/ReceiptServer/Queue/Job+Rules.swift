import Foundation
import ReceiptKit

/// The queue's rules, written once: every change of a job's state is a function of the job (and
/// the time) alone. The stores (``SQLiteJobStore``, ``PostgresJobStore``) only load, lock and save
/// around them — see ``JobStore`` — so the two cannot drift apart, and each rule is tested without
/// a database (`QueueRuleTests`).
extension Job {
  /// A job as a store inserts it from a request: queued, due now.
  init(
    _ request: JobRequest, id: String, sequence: Int64, idempotencyKey: String?, orderID: String?, now: Date
  ) {
    self.init(
      id: id, sequence: sequence, idempotencyKey: idempotencyKey, printer: request.printer, template: request.template,
      data: request.data, locale: request.locale, copies: request.copies, state: .queued, attempts: 0, crashes: 0,
      error: nil, cupsJobID: nil, printerState: nil, createdAt: now, updatedAt: now, notBefore: now, orderID: orderID,
      route: request.route, label: request.label, fallback: request.fallback, reprintOf: request.reprintOf,
      reprint: request.reprint, interruptions: 0, documentFormat: request.documentFormat, jobName: request.jobName,
      user: request.user, printOptions: request.printOptions, recipient: request.recipient)
    if request.held { state = .held }
  }

  /// The states of a job in its printer's queue. The head of a queue — the next job — is its
  /// open job with the lowest `sequence` (FIFO: while the head waits for a retry or prints,
  /// nothing behind it is taken). The stores select it with this set (`head(of:)`, the claim).
  static let openStates: [State] = [.queued, .printing]

  /// Whether the job holds its printer's queue (``openStates``).
  var isOpen: Bool { Self.openStates.contains(state) }

  /// The printers a change of a job may give work — their workers are woken once the change is
  /// committed (the stores deliver it: SQLite to this daemon's workers, PostgreSQL with `NOTIFY`
  /// to every daemon): the job's printer when it joined its queue or is due anew (stored, retried,
  /// requeued, released, moved there), and the printer whose queue it left without being claimed
  /// (canceled, moved away: the job behind it is the head now). Nothing else wakes a worker: a
  /// claim and what follows are the worker's own, and a job outside every queue (held, finished,
  /// dead) moves no head. `old` is nil for a new job.
  static func printersToWake(from old: Job?, to new: Job) -> Set<String> {
    var printers: Set<String> = []
    let stayed = old.map { $0.state == .queued && $0.printer == new.printer && $0.notBefore == new.notBefore } ?? false
    if new.state == .queued, !stayed { printers.insert(new.printer) }
    if let old, old.state == .queued, new.state != .printing, new.state != .queued || new.printer != old.printer {
      printers.insert(old.printer)
    }
    return printers
  }

  /// Whether the head may be claimed at `now`: queued, and not waiting for a retry.
  func isDue(at now: Date) -> Bool { state == .queued && notBefore <= now }

  /// The head of its queue taken by its printer's worker: `printing`, one more attempt, its own
  /// work (rendering) in progress. False when it is not due (nothing changes).
  mutating func claim(now: Date) -> Bool {
    guard isDue(at: now) else { return false }
    state = .printing
    attempts += 1
    stage = .rendering
    updatedAt = now
    return true
  }

  /// About to be handed to a raw printer with the process ID it is to confirm it by (nil: the
  /// model cannot confirm): a job sent before and not completed since may have printed, so it
  /// counts one more interruption (it prints again marked as a reprint).
  mutating func markSent(processID: String?, now: Date) {
    if sentAt != nil { interruptions += 1 }
    sentAt = now
    self.processID = processID
    stage = .printer
    updatedAt = now
  }

  /// Records this printing job as sent at `now`, as the receipt drawn from `drawn` (this job
  /// with ``markSent(processID:now:)`` applied when it was drawn) says it is: the rule applied to
  /// the job as stored must give what was drawn — the same attempt, the same interruptions (so
  /// the same "REPRINT" mark), the same process ID. False, and nothing changes, when the job
  /// changed since it was drawn: the receipt must be drawn again.
  mutating func recordSent(asDrawn drawn: Job, now: Date) -> Bool {
    var recorded = self
    recorded.markSent(processID: drawn.processID, now: now)
    guard state == .printing, attempts == drawn.attempts, recorded.interruptions == drawn.interruptions else {
      return false
    }
    self = recorded
    return true
  }

  /// Rendered, about to be handed to its printer (CUPS, a directory).
  mutating func markHandedOver(now: Date) {
    stage = .printer
    updatedAt = now
  }

  /// Sent to CUPS as `cupsJobID` (so with its printer), waiting for the reasons given (nil:
  /// nothing to report).
  mutating func progress(cupsJobID: Int, printerState: String?, now: Date) {
    self.cupsJobID = cupsJobID
    self.printerState = printerState
    stage = .printer
    updatedAt = now
  }

  /// Printed, with the hash of its archived document if one was kept.
  mutating func complete(cupsJobID: Int?, documentSHA256: String?, now: Date) {
    state = .completed
    stage = nil
    self.documentSHA256 = documentSHA256 ?? self.documentSHA256
    self.cupsJobID = cupsJobID ?? self.cupsJobID
    error = nil
    printerState = nil
    updatedAt = now
  }

  /// Where a failed attempt takes this printing job: `failed` for good when the failure is
  /// `permanent` (a template or data error, a printer that does not exist), `dead` once it has
  /// had `maxAttempts` attempts, else `queued` again at `now` plus the backoff for its attempts
  /// (``backoff(attempt:jitter:)``). ``fail(error:retryAt:state:now:)`` records it.
  func afterFailedAttempt(permanent: Bool, maxAttempts: Int, now: Date, jitter: Double) -> (
    state: State, retryAt: Date?
  ) {
    if permanent { return (.failed, nil) }
    if attempts >= maxAttempts { return (.dead, nil) }
    return (.queued, now.addingTimeInterval(Self.backoff(attempt: attempts, jitter: jitter)))
  }

  /// Seconds before attempt `attempt + 1`: 0.5 s doubling per attempt, at most 60 s, times
  /// `jitter` (the worker draws it from 0.75…1.25, so printers that failed together do not retry
  /// together).
  static func backoff(attempt: Int, jitter: Double = 1) -> TimeInterval {
    min(60, 0.5 * pow(2, Double(min(max(0, attempt - 1), 16)))) * jitter
  }

  /// An attempt failed: queued again for `retryAt`, or ended in `state` (failed or dead).
  mutating func fail(error: String, retryAt: Date?, state: State, now: Date) {
    self.error = error
    stage = nil
    updatedAt = now
    if let retryAt {
      self.state = .queued
      notBefore = retryAt
    } else {
      self.state = state
    }
  }

  /// A held job's document arrived (IPP Send-Document): it joins its printer's queue. False
  /// (nothing changes) unless it is held.
  mutating func release(data: Data, documentFormat: DocumentFormat?, now: Date) -> Bool {
    guard state == .held else { return false }
    self.data = data
    self.documentFormat = documentFormat
    state = .queued
    notBefore = now
    updatedAt = now
    return true
  }

  /// A held job whose document did not come in time (or that cannot take one): failed with
  /// `reason`. False unless it is held.
  mutating func abandon(reason: String, now: Date) -> Bool {
    guard state == .held else { return false }
    state = .failed
    error = reason
    updatedAt = now
    return true
  }

  /// Canceled before it started printing; false (nothing changes) unless it is queued or held.
  mutating func cancel(now: Date) -> Bool {
    guard state == .queued || state == .held else { return false }
    state = .canceled
    updatedAt = now
    return true
  }

  /// A failed or dead job back in its queue with fresh attempts; false unless failed or dead and
  /// still printable (a document job whose document was removed is not).
  mutating func retry(now: Date) -> Bool {
    guard state == .failed || state == .dead, !documentRemoved else { return false }
    state = .queued
    attempts = 0
    notBefore = now
    updatedAt = now
    return true
  }

  /// Whether the job has ended: printed, failed, dead or canceled.
  var isFinished: Bool { [.completed, .failed, .dead, .canceled].contains(state) }

  /// A document job whose document was removed after its retention (``dropDocument()``). Only
  /// meaningful on a job loaded whole (lists are read without documents).
  var documentRemoved: Bool { documentFormat != nil && data.isEmpty }

  /// A finished document job's document removed after the retention (`documentDays`): its
  /// record stays (state, error, times), it can no longer be retried. False unless it is a
  /// finished document job that still has its document.
  mutating func dropDocument() -> Bool {
    guard documentFormat != nil, !data.isEmpty, isFinished else { return false }
    data = Data()
    return true
  }

  /// A `printing` job found not printed when checked with its printer: queued again, at the head.
  mutating func requeue(now: Date) {
    state = .queued
    stage = nil
    updatedAt = now
  }

  /// A job found `printing` when its printer is taken: back to `queued`, or
  /// `dead` once its own work has been in hand at `maxCrashes` crashes. A crash counts only when
  /// `counted` (the daemon did not stop cleanly) and the job was being rendered: one that its
  /// printer already had (being sent, at CUPS, waiting for a confirmation) was not the cause —
  /// a power cut or `kill -9` while a receipt prints is no reason to give up on it. (Rows from
  /// before stages were recorded count as rendering unless CUPS had them, as they always did.)
  mutating func recoverFromCrash(counted: Bool, maxCrashes: Int, now: Date) {
    let rendering = stage == .rendering || (stage == nil && cupsJobID == nil)
    if counted && rendering { crashes += 1 }
    if crashes >= maxCrashes {
      state = .dead
      error =
        "the daemon stopped \(crashes) times while rendering this job (a crash in its template or data?); "
        + "check the order and retry it by hand"
    } else {
      state = .queued
    }
    stage = nil
    updatedAt = now
  }

  /// A queued ticket of `printer`, which cannot print, moved to its route's fallback printer with
  /// the printer it was meant for and why, and fresh attempts; false (nothing changes) when it is
  /// not queued there or has no other printer to go to.
  mutating func failOver(from printer: String, reason: String, now: Date) -> Bool {
    guard state == .queued, self.printer == printer, let fallback, fallback != printer else { return false }
    fallbackFor = fallbackFor ?? printer
    self.printer = fallback
    failoverReason = reason
    attempts = 0
    cupsJobID = nil
    printerState = nil
    notBefore = now
    updatedAt = now
    return true
  }
}

extension JobRequest {
  /// The request of the next reprint of `original`, which has `earlierReprints` reprints already
  /// (it is number `earlierReprints + 1`): same printer, template, order, locale, copies, route
  /// and label. The stores count the earlier reprints under the printer's submission lock.
  static func reprint(of original: Job, earlierReprints: Int) -> JobRequest {
    let number = earlierReprints + 1
    var request = JobRequest(
      printer: original.printer, template: original.template, data: original.data, locale: original.locale,
      copies: original.copies)
    request.route = original.route
    request.label = original.label
    request.reprintOf = original.id
    request.reprint = number
    // A document job prints its document again, as it was sent.
    request.documentFormat = original.documentFormat
    request.jobName = original.jobName
    request.user = original.user
    request.printOptions = original.printOptions
    request.recipient = original.recipient
    return request
  }
}
