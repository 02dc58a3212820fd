public import Foundation

/// A print job as the queue keeps it.
public struct Job: Codable, Sendable, Equatable {
  /// Where a job is in its life.
  public enum State: String, Codable, Sendable, CaseIterable {
    /// Accepted, waiting for its printer (or for a retry).
    case queued
    /// Being rendered and sent.
    case printing
    /// The printer reported it printed.
    case completed
    /// A permanent error (template, data): not retried.
    case failed
    /// Canceled before it printed.
    case canceled
    /// Too many transient failures; kept for inspection, retry by hand.
    case dead
  }

  public var id: String
  /// FIFO position (per printer, ascending).
  public var sequence: Int64
  public var idempotencyKey: String?
  public var printer: String
  public var template: String
  /// The order JSON as received.
  public var data: Data
  public var locale: String?
  public var copies: Int
  public var state: State
  public var attempts: Int
  /// Times the daemon stopped without a clean shutdown while it was rendering this job (its own
  /// work: binding, layout, drawing, encoding). After the configured number of them
  /// (`maxCrashes`) the job is dead, so one job that crashes the renderer cannot stop its
  /// printer's queue for ever. A stop while the job was with its printer (being sent, followed
  /// at CUPS, waiting for a raw printer's confirmation) is not the job's doing and not counted.
  public var crashes: Int
  public var error: String?
  /// The CUPS job id once sent to CUPS.
  public var cupsJobID: Int?
  /// While a sent job waits: the CUPS job state and the printer's reasons (`held`,
  /// `printer-stopped`, `media-empty` …).
  public var printerState: String?
  public var createdAt: Date
  public var updatedAt: Date
  /// Not claimed before this time (retry backoff).
  public var notBefore: Date
  /// The order this job is a ticket of (`POST /v1/orders`).
  public var orderID: String?
  /// The route that made this ticket.
  public var route: String?
  /// The ticket's label on paper (`KITCHEN`).
  public var label: String?
  /// Where the ticket goes while its printer cannot print.
  public var fallback: String?
  /// The printer the job was meant for when it was moved to its fallback (`printer` is where it
  /// printed), and why it was moved.
  public var fallbackFor: String?
  public var failoverReason: String?
  /// The job this one reprints, and which reprint of it this is (1, 2 …; 0: an original).
  public var reprintOf: String?
  public var reprint: Int
  /// SHA-256 (hex) of the archived PDF of what was printed.
  public var documentSHA256: String?
  /// When the job was last handed to a raw printer (socket, USB, serial), and the process ID the
  /// printer was asked to confirm it with (models that confirm prints): set before the bytes go
  /// out, so a restart knows the job may have printed.
  public var sentAt: Date?
  public var processID: String?
  /// Earlier prints of this job that were interrupted (the printer stopped mid-receipt) or never
  /// confirmed (a crash or a lost connection after sending): it prints again marked "REPRINT".
  public var interruptions: Int
  /// While `printing`: whether the daemon is doing the job's own work or waiting on its printer
  /// (recorded durably before the first byte goes out), which decides whether a crash counts.
  public var stage: Stage? = nil

  /// The part of printing a `printing` job is in.
  public enum Stage: String, Codable, Sendable {
    /// Claimed and being bound, laid out, drawn and encoded: the job's own work.
    case rendering
    /// Handed to its printer: being sent, followed at CUPS, or waiting for a confirmation.
    case printer
  }
}

/// What a client submits.
public struct JobRequest: Sendable, Equatable {
  public var printer: String
  public var template: String
  public var data: Data
  public var locale: String?
  public var copies: Int
  /// Set for a ticket of an order: its route, label and fallback printer.
  public var route: String?
  public var label: String?
  public var fallback: String?
  /// Set for a reprint: the original job and the reprint's number.
  public var reprintOf: String?
  public var reprint: Int = 0

  /// Creates a request.
  public init(printer: String, template: String, data: Data, locale: String? = nil, copies: Int = 1) {
    self.printer = printer
    self.template = template
    self.data = data
    self.locale = locale
    self.copies = copies
  }
}

/// Durable job storage. A job is on disk when `submit` returns. Implementations: SQLite (one
/// daemon per file, ``SQLiteJobStore``) and PostgreSQL (several daemons share one database,
/// ``PostgresJobStore``).
public protocol JobStore: Sendable {
  /// Stores a new job, or returns the job an idempotency key already names (`created` false).
  func submit(_ request: JobRequest, idempotencyKey: String?, now: Date) throws -> (job: Job, created: Bool)
  /// `submit` for the API: durable when it returns, without blocking a thread of the
  /// concurrency pool; concurrent submissions may share one commit (one fsync).
  func accept(_ request: JobRequest, idempotencyKey: String?) async throws -> (job: Job, created: Bool)
  func job(_ id: String) throws -> Job?
  /// Jobs newest first, optionally filtered, after a cursor (a sequence number).
  func jobs(state: Job.State?, printer: String?, limit: Int, before cursor: Int64?) throws -> [Job]
  /// The printer's oldest unfinished job if it is due: it becomes `printing` with one more attempt.
  /// FIFO: while the head waits for a retry, nothing behind it is claimed.
  func claimNext(printer: String, now: Date) throws -> Job?
  /// When the printer's head job is due (it waits for a retry), nil when it has no queued head:
  /// how long an idle worker sleeps unless woken.
  func nextDue(printer: String) throws -> Date?
  /// Calls `handler` with a printer's name after every change that can give it work (a job
  /// accepted, retried, requeued, or a canceled head): workers sleep until then, no polling.
  func observeWork(_ handler: @escaping @Sendable (String) -> Void)
  /// Tells `listener` the jobs every committed change created or changed, as committed, in
  /// commit order (the event feed): nothing that changes a job escapes it.
  func observeChanges(_ listener: any JobChangeListener)
  /// Records that a job is about to be handed to a raw printer, with the process ID it is to be
  /// confirmed by (nil: the model cannot confirm): ``Job/markSent(processID:now:)``. Returns the
  /// job as stored.
  func markSent(_ id: String, processID: String?, now: Date) throws -> Job
  /// Records that a job was rendered and is about to be handed to its printer (CUPS, a
  /// directory): ``Job/markHandedOver(now:)``.
  func markHandedOver(_ id: String, now: Date) throws
  /// Records that a job printed (with the hash of its archived document, if kept).
  func complete(_ id: String, cupsJobID: Int?, documentSHA256: String?, now: Date) throws
  /// Records a failure: `retryAt` requeues it, otherwise it ends in `state` (failed or dead).
  func fail(_ id: String, error: String, retryAt: Date?, state: Job.State, now: Date) throws
  /// Cancels a job that has not started printing; returns the job, or nil if there is none.
  func cancel(_ id: String, now: Date) throws -> Job?
  /// Puts a failed or dead job back in its queue.
  func retry(_ id: String, now: Date) throws -> Job?
  /// Records the CUPS job a `printing` job was sent as, and why it waits (nil: nothing to report).
  func progress(_ id: String, cupsJobID: Int, printerState: String?, now: Date) throws
  /// Jobs left `printing` by a crash.
  func interrupted() throws -> [Job]
  /// Sets a `printing` job back to `queued` (after reconciling it found it not printed).
  func requeue(_ id: String, now: Date) throws
  /// At start: every job left `printing` goes back to the head of its queue to be checked with
  /// its printer. Unless the previous run shut down cleanly, each such job that was still being
  /// rendered or sent (not yet in CUPS' hands) counts a crash; one with `maxCrashes` crashes
  /// becomes `dead` instead. Returns the jobs and what became of them.
  func recover(maxCrashes: Int, now: Date) throws -> [Job]
  /// Records that the daemon stopped cleanly (its jobs in hand are not crashes).
  func markCleanShutdown() throws
  /// Job counts by state and printer.
  func counts() throws -> [String: [String: Int]]
  /// Nil when the store can write, else why not (after a failed write, a probe write decides).
  func writeProblem() -> String?

  /// Stores an order and its tickets in one transaction (all or none), durable when it returns,
  /// or returns the order an idempotency key already names with its tickets (`created` false).
  func acceptOrder(_ request: OrderRequest, idempotencyKey: String?) async throws -> (
    order: Order, jobs: [Job], created: Bool
  )
  /// An order and its tickets.
  func order(_ id: String) throws -> (order: Order, jobs: [Job])?
  /// A new job that prints `original` again, numbered after its earlier reprints, or the job an
  /// idempotency key already names (`created` false).
  func reprint(_ original: Job, idempotencyKey: String?, now: Date) throws -> (job: Job, created: Bool)
  /// Moves the printer's queued jobs that have a fallback printer to it (recording the printer
  /// they were for and why); returns them as moved.
  func failOver(printer: String, reason: String, now: Date) throws -> [Job]

  /// Takes `printer` for this daemon: one daemon drives a printer at a time. Returns the jobs
  /// its last owner left `printing`, put back at the head of its queue to be checked with the
  /// printer (as ``recover(maxCrashes:now:)`` does at start), or nil while another daemon owns it.
  func own(printer: String, maxCrashes: Int, now: Date) throws -> [Job]?
  /// Whether this daemon still owns `printer` (ownership ends with a lost database session).
  func owns(printer: String) -> Bool
  /// Gives `printer` up after its worker stopped cleanly (the job it left is not a crash).
  func release(printer: String)
  /// Which daemon drives each printer, for stores shared by several daemons (else empty).
  func printerOwners() throws -> [String: String]
}

extension JobStore {
  /// One daemon per SQLite file (its lock is taken at start): it owns every printer, and
  /// ``recover(maxCrashes:now:)`` has already reconciled them.
  public func own(printer: String, maxCrashes: Int, now: Date) throws -> [Job]? { [] }
  public func owns(printer: String) -> Bool { true }
  public func release(printer: String) {}
  public func printerOwners() throws -> [String: String] { [:] }

  /// Records that a job printed, with no archived document.
  public func complete(_ id: String, cupsJobID: Int?, now: Date) throws {
    try complete(id, cupsJobID: cupsJobID, documentSHA256: nil, now: now)
  }
}

extension Job {
  /// The head of its queue taken by its printer's worker: `printing`, one more attempt, its own
  /// work (rendering) in progress.
  mutating func claim(now: Date) {
    state = .printing
    attempts += 1
    stage = .rendering
    updatedAt = now
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

  /// Rendered, about to be handed to its printer (CUPS, a directory).
  mutating func markHandedOver(now: Date) {
    stage = .printer
    updatedAt = now
  }

  /// A job found `printing` after its daemon died (or lost its printer): back to `queued`, or
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
}

extension JobRequest {
  /// The request of reprint number `number` of `original`: same printer, template, order, locale,
  /// copies, route and label.
  static func reprint(of original: Job, number: Int) -> JobRequest {
    var request = JobRequest(
      printer: original.printer, template: original.template, data: original.data, locale: original.locale,
      copies: original.copies)
    request.route = original.route
    request.label = original.label
    request.reprintOf = original.id
    request.reprint = number
    return request
  }
}
