import Foundation

/// Durable job storage as a thin driver: transactions, a printer's lock, loading and saving jobs
/// and orders, notifications — and no rule of the queue. The rules (claiming the head, outcomes,
/// crash recovery, reprint numbers, failover) are written once, as functions of a job
/// (`Job+Rules`), and applied by the queue operations every store shares (`JobStore+Queue`).
/// Implementations: SQLite (one daemon per file, ``SQLiteJobStore``) and PostgreSQL (several
/// daemons share one database, ``PostgresJobStore``). Every method is async and never blocks a
/// thread of Swift's concurrency pool; a write is durable when it returns.
///
/// To add a store: conform to this protocol, run the contract suites against it (add it to
/// `StoreKind` in the server tests), and choose it in ``ReceiptServer/init(configuration:logger:)``.
protocol JobStore: Sendable {
  // MARK: Lifecycle

  /// Starts using the store: takes what makes this daemon the one that may drive its printers
  /// (SQLite: the file's lock) and learns how the last run ended. Calling it again does nothing.
  func open() async throws
  /// Takes `printer` for this daemon: how the daemon that drove it before stopped (``LastStop``:
  /// its jobs left printing count a crash only after an unclean stop), or nil while another
  /// daemon drives it.
  func takeOwnership(of printer: String) async throws -> LastStop?
  /// Whether this daemon still drives `printer` (a shared store's session may have ended),
  /// asked of the store: the check before anything is sent.
  func owns(printer: String) async -> Bool
  /// Whether this daemon drives `printer` as far as it knows without asking (a shared store: the
  /// session that holds it has not ended). Enough before a claim, which runs on that session and
  /// fails when it is gone; forgets a printer whose session has ended.
  func holds(printer: String) -> Bool
  /// Gives `printer` up after its worker stopped cleanly.
  func release(printer: String) async
  /// Stops using the store after a clean stop (the jobs left printing are no crashes).
  func close() async
  /// The store's own background work (a connection pool's upkeep, a change listener), which the
  /// daemon runs as a child task for as long as it serves; nil for a store without any. It holds
  /// the store weakly and ends when the store is closed or dropped, or when canceled.
  var backgroundWork: (@Sendable () async -> Void)? { get }

  // MARK: Writes (one transaction each, durable when they return)

  /// Stores a submission, or answers what its idempotency key already names.
  func insert(_ submission: Submission) async throws -> Inserted
  /// Changes job `id` with `change` (saved when it returns true): the job as stored and whether
  /// it changed, nil when there is none. A job this daemon claimed changes only while its claim
  /// stands: a daemon that lost the printer gets ``OwnershipLost`` and records nothing.
  func update(_ id: String, _ change: @escaping @Sendable (inout Job) -> Bool) async throws -> (Job, changed: Bool)?
  /// The claim: the printer's head (its oldest queued or printing job) under the printer's lock,
  /// changed with `change`; when it changes, the store records this daemon's claim of the job.
  func updateHead(of printer: String, _ change: @escaping @Sendable (inout Job) -> Bool) async throws -> (
    Job, changed: Bool
  )?
  /// Every job of `printer` in `state`, oldest first, each changed with `change`, in one
  /// transaction; returns those that changed.
  func updateAll(printer: String, state: Job.State, _ change: @escaping @Sendable (inout Job) -> Bool) async throws
    -> [Job]

  // MARK: Reads

  func job(_ id: String) async throws -> Job?
  /// Jobs newest first, optionally filtered, after a cursor (a sequence number), without their
  /// data (`data` is empty: a list never loads documents — 20 failed 30 MiB jobs once cost each
  /// Get-Jobs 760 MB).
  func jobs(state: Job.State?, printer: String?, limit: Int, before cursor: Int64?) async throws -> [Job]
  /// What a periodic sweep looks at, oldest first, at most `limit`, without their data.
  func sweepable(_ sweep: Sweep, limit: Int) async throws -> [Job]
  /// The printer's head: its oldest queued or printing job.
  func head(of printer: String) async throws -> Job?
  /// An order and its tickets.
  func order(_ id: String) async throws -> (order: Order, jobs: [Job])?
  /// Job counts by printer and state.
  func counts() async throws -> JobCounts
  /// Which daemon drives each printer, for stores shared by several daemons (else empty).
  func printerOwners() async throws -> [String: String]
  /// Nil when the store can write, else why not (after a failed write, a probe write decides).
  func writeProblem() async -> String?

  // MARK: Notifications

  /// Calls `handler` with a printer's name after every committed change that can give it work,
  /// as ``Job/printersToWake(from:to:)`` decides it (the store only delivers it): workers sleep
  /// until then.
  func observeWork(_ handler: @escaping @Sendable (String) -> Void)
  /// Tells `listener` the jobs every committed change created or changed, as committed, in commit
  /// order (the event feed): nothing that changes a job escapes it.
  func observeChanges(_ listener: any JobChangeListener)
}

/// How the daemon that drove a printer before stopped, as a store records it: the one
/// definition of a clean stop, for every store. A printer no daemon drove before (a fresh queue,
/// a new printer) has nothing to account for.
enum LastStop: Sendable, Equatable {
  /// No daemon drove the printer before.
  case never
  /// Its last daemon stopped cleanly (its jobs left printing were left by the stop).
  case clean
  /// Its last daemon died while driving it (a crash, `kill -9`, a lost session).
  case unclean

  /// Whether jobs found printing count a crash (``Job/recoverFromCrash(counted:maxCrashes:now:)``).
  var countsCrashes: Bool { self == .unclean }
}

/// The jobs a periodic sweep works through (``JobStore/sweepable(_:limit:)``).
enum Sweep: Sendable {
  /// Held jobs (IPP Create-Job) created before the date: their document did not come.
  case heldSince(Date)
  /// Finished document jobs that still have their document and ended before the date.
  case documentsEndedBefore(Date)
}

/// What a client submits, as one transaction.
enum Submission: Sendable {
  /// A job (`POST /v1/jobs`).
  case job(JobRequest, key: String?)
  /// An order and all its tickets (`POST /v1/orders`): all or none.
  case order(OrderRequest, key: String?)
  /// Another print of a printed job, numbered after its earlier reprints (``JobRequest/reprint(of:earlierReprints:)``).
  case reprint(of: Job, key: String?)
}

/// What a submission stored (or what its key already named: `created` false).
enum Inserted: Sendable {
  case job(Job, created: Bool)
  case order(Order, [Job], created: Bool)
}

/// Another daemon took the printer over (this one lost its database session): the job is
/// theirs now, and this daemon must not record anything more about it.
struct OwnershipLost: Error, CustomStringConvertible {
  let job: String
  var description: String { "job \(job) was taken over by another daemon (this one lost its printer)" }
}

/// How many jobs each printer has in each state (the `/metrics` gauges, the printers' answers).
struct JobCounts: Sendable, Equatable {
  private var counts: [String: [Job.State: Int]] = [:]

  /// Adds `count` jobs of `printer` in `state` (a state the queue does not know is not counted).
  mutating func add(_ count: Int, printer: String, state: String) {
    guard let state = Job.State(rawValue: state) else { return }
    counts[printer, default: [:]][state, default: 0] += count
  }

  /// The jobs of `printer` in `state`.
  func count(_ printer: String, _ state: Job.State) -> Int { counts[printer]?[state] ?? 0 }

  /// The jobs of `printer` in any of `states`.
  func count(_ printer: String, in states: [Job.State]) -> Int { states.reduce(0) { $0 + count(printer, $1) } }

  /// Every printer with jobs, and its counts by state, in name order.
  var byPrinter: [(printer: String, states: [(state: Job.State, count: Int)])] {
    counts.sorted { $0.key < $1.key }.map { printer, states in
      (printer, states.sorted { $0.key.rawValue < $1.key.rawValue }.map { ($0.key, $0.value) })
    }
  }
}
