import Foundation
import GRDB
@_spi(Internals) import ReceiptModel

/// Jobs in a SQLite file through GRDB, in WAL mode with `synchronous=FULL`: every write is a
/// committed transaction whose WAL frames are fsynced before it returns, so an accepted job
/// survives a crash and a power cut. (GRDB's default for WAL is NORMAL, durable across a process
/// crash only.) A thin driver: GRDB's async reads and writes (its own queues, never a thread of
/// the concurrency pool), one writer, so the head of a queue needs no lock of its own. One daemon
/// per file: ``open()`` takes the file's lock (`<database>.lock`).
final class SQLiteJobStore: JobStore, Sendable {
  let pool: DatabasePool
  let path: String
  let committer: GroupCommitter
  let health = StoreHealth()
  private let observers = Locked<[@Sendable (String) -> Void]>([])
  private let changes = JobChangeObserver()
  /// The file lock, held between ``open()`` and ``close()``.
  private let lock = Locked<DatabaseLock?>(nil)
  /// The printers taken by this daemon and not given up yet.
  private let owned = Locked<Set<String>>([])

  /// Opens (and migrates) the database at `path`.
  init(path: String) throws {
    self.path = path
    var configuration = Configuration()
    configuration.busyMode = .timeout(5)
    do {
      pool = try DatabasePool(path: path, configuration: configuration)
      // GRDB sets NORMAL on the writer after `prepareDatabase` runs (its WAL set-up), so FULL is
      // set here, on the pool's one writer connection; a test reads it back.
      try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
    } catch let error as DatabaseError {
      throw StoreUnavailable(reason: "cannot open \(path): \(error.message ?? "\(error.resultCode)")")
    }
    let pool = self.pool
    try health.guarded(write: true) { try Self.migrator.migrate(pool) }
    committer = GroupCommitter(pool: pool, health: health)
    pool.add(transactionObserver: changes, extent: .databaseLifetime)
  }

  /// The value of `PRAGMA synchronous` on the store's connections (2 = FULL).
  func synchronousMode() async throws -> Int {
    try await pool.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1 }
  }

  // MARK: Lifecycle

  func open() async throws {
    try lock.withLock { lock in
      if lock == nil { lock = try DatabaseLock(database: path) }
    }
  }

  /// One daemon per file drives every printer; taking one reads how its last driver stopped and
  /// records that this one drives it now. In the `daemon` table each printer ever driven has
  /// `printer:NAME` = `driving` (a daemon drives it, or died doing so) or `clean` (given up by a
  /// clean stop); a printer without it was never driven — from before the per-printer record,
  /// the daemon-wide `cleanShutdown` of earlier versions answers for printers with jobs.
  func takeOwnership(of printer: String) async throws -> LastStop? {
    let key = "printer:\(printer)"
    let lastStop = try await write { db -> LastStop in
      let recorded = try String.fetchOne(db, sql: "SELECT value FROM daemon WHERE key = ?", arguments: [key])
      try db.execute(sql: "INSERT OR REPLACE INTO daemon (key, value) VALUES (?, 'driving')", arguments: [key])
      switch recorded {
      case "clean": return .clean
      case "driving": return .unclean
      default:
        guard try Job.filter(JobColumn.printer.column == printer).fetchCount(db) > 0 else { return .never }
        let legacy = try String.fetchOne(db, sql: "SELECT value FROM daemon WHERE key = 'cleanShutdown'")
        return legacy == "1" ? .clean : .unclean
      }
    }
    owned.withLock { _ = $0.insert(printer) }
    return lastStop
  }

  func owns(printer: String) async -> Bool { holds(printer: printer) }

  func holds(printer: String) -> Bool { owned.withLock { $0.contains(printer) } }

  /// Gives a printer up after its worker stopped cleanly: recorded as a clean stop for it.
  func release(printer: String) async {
    guard owned.withLock({ $0.remove(printer) }) != nil else { return }
    recordCleanStop(of: [printer])
  }

  /// None: GRDB's pool needs no upkeep, and workers are woken after each commit.
  var backgroundWork: (@Sendable () async -> Void)? { nil }

  func close() async {
    recordCleanStop(of: owned.withLock { $0 })
    owned.withLock { $0 = [] }
    lock.withLock { $0 = nil }
  }

  /// Records that `printers` were given up by a clean stop. Not recorded (a full disk): the next
  /// start counts the jobs left printing as crashes (the safe side).
  private func recordCleanStop(of printers: Set<String>) {
    guard !printers.isEmpty else { return }
    try? pool.write { db in
      for printer in printers {
        try db.execute(
          sql: "INSERT OR REPLACE INTO daemon (key, value) VALUES (?, 'clean')", arguments: ["printer:\(printer)"])
      }
      try db.execute(sql: "DELETE FROM daemon WHERE key = 'cleanShutdown'")
    }
  }

  // MARK: Writes

  func insert(_ submission: Submission) async throws -> Inserted {
    let inserted = try await committer.submit(submission)
    switch inserted {
    case .job(let job, let created): if created { deliver(Job.printersToWake(from: nil, to: job)) }
    case .order(_, let jobs, let created):
      if created { deliver(jobs.reduce(into: Set()) { $0.formUnion(Job.printersToWake(from: nil, to: $1)) }) }
    }
    return inserted
  }

  func update(_ id: String, _ change: @escaping @Sendable (inout Job) -> Bool) async throws -> (
    Job, changed: Bool
  )? {
    let result = try await write { db -> (Job, Bool, Set<String>)? in
      guard let original = try Job.filter(JobColumn.id.column == id).fetchOne(db) else { return nil }
      var job = original
      let changed = change(&job)
      if changed { try job.update(db) }
      return (job, changed, changed ? Job.printersToWake(from: original, to: job) : [])
    }
    guard let (job, changed, wakes) = result else { return nil }
    deliver(wakes)
    return (job, changed)
  }

  func updateHead(of printer: String, _ change: @escaping @Sendable (inout Job) -> Bool) async throws -> (
    Job, changed: Bool
  )? {
    // Only a printer taken claims (its jobs left printing were checked first), as on PostgreSQL.
    guard await owns(printer: printer) else { return nil }
    let result = try await write { db -> (Job, Bool, Set<String>)? in
      guard let original = try Self.head(of: printer, db) else { return nil }
      var job = original
      let changed = change(&job)
      if changed { try job.update(db) }
      return (job, changed, changed ? Job.printersToWake(from: original, to: job) : [])
    }
    guard let (job, changed, wakes) = result else { return nil }
    deliver(wakes)
    return (job, changed)
  }

  func updateAll(printer: String, state: Job.State, _ change: @escaping @Sendable (inout Job) -> Bool)
    async throws -> [Job]
  {
    let (changed, wakes) = try await write { db -> ([Job], Set<String>) in
      var changed: [Job] = []
      var wakes: Set<String> = []
      let jobs = try Job.filter(JobColumn.printer.column == printer).filter(JobColumn.state.column == state.rawValue)
        .order(JobColumn.sequence.column).fetchAll(db)
      for original in jobs {
        var job = original
        guard change(&job) else { continue }
        try job.update(db)
        wakes.formUnion(Job.printersToWake(from: original, to: job))
        changed.append(job)
      }
      return (changed, wakes)
    }
    deliver(wakes)
    return changed
  }

  // MARK: Reads

  func job(_ id: String) async throws -> Job? {
    try await read { try Job.filter(JobColumn.id.column == id).fetchOne($0) }
  }

  /// Every column but the document's bytes (an empty blob in their place).
  static var listSelection: [any SQLSelectable] {
    [.allColumns(excluding: [JobColumn.data.rawValue]), SQL(sql: "x'' AS data")]
  }

  func jobs(state: Job.State?, printer: String?, limit: Int, before cursor: Int64?) async throws -> [Job] {
    try await read { db in
      var request = Job.select(Self.listSelection).order(JobColumn.sequence.column.desc).limit(limit)
      if let state { request = request.filter(JobColumn.state.column == state.rawValue) }
      if let printer { request = request.filter(JobColumn.printer.column == printer) }
      if let cursor { request = request.filter(JobColumn.sequence.column < cursor) }
      return try request.fetchAll(db)
    }
  }

  func sweepable(_ sweep: Sweep, limit: Int) async throws -> [Job] {
    try await read { db in
      let request = Job.select(Self.listSelection).order(JobColumn.sequence.column).limit(limit)
      switch sweep {
      case .heldSince(let date):
        return try request.filter(
          JobColumn.state.column == Job.State.held.rawValue && JobColumn.createdAt.column < date
        ).fetchAll(db)
      case .documentsEndedBefore(let date):
        let ended = [Job.State.completed, .canceled, .failed, .dead].map(\.rawValue)
        return try request.filter(
          JobColumn.documentFormat.column != nil && ended.contains(JobColumn.state.column)
            && JobColumn.updatedAt.column < date
            && length(JobColumn.data.column) > 0
        ).fetchAll(db)
      }
    }
  }

  func head(of printer: String) async throws -> Job? {
    try await read { try Self.head(of: printer, $0) }
  }

  static func head(of printer: String, _ db: Database) throws -> Job? {
    try Job.filter(JobColumn.printer.column == printer)
      .filter(Job.openStates.map(\.rawValue).contains(JobColumn.state.column))
      .order(JobColumn.sequence.column).fetchOne(db)
  }

  func counts() async throws -> JobCounts {
    try await read { db in
      var result = JobCounts()
      let rows = try Row.fetchAll(db, sql: "SELECT printer, state, COUNT(*) AS n FROM job GROUP BY printer, state")
      for row in rows { result.add(row["n"], printer: row["printer"], state: row["state"]) }
      return result
    }
  }

  func printerOwners() async throws -> [String: String] { [:] }

  func writeProblem() async -> String? {
    guard health.problem != nil else { return nil }
    // A probe write: after a disk-full or I/O error, ready again once a write works.
    do {
      try await write { db in
        try db.execute(sql: "INSERT OR REPLACE INTO daemon (key, value) VALUES ('probe', ?)", arguments: ["\(Date())"])
      }
      return nil
    } catch {
      return health.problem ?? "\(error)"
    }
  }

  // MARK: Notifications

  func observeWork(_ handler: @escaping @Sendable (String) -> Void) {
    observers.withLock { $0.append(handler) }
  }

  func observeChanges(_ listener: any JobChangeListener) {
    changes.add(listener)
  }

  /// Wakes this daemon's workers of `printers` (after the change that gives them work committed).
  private func deliver(_ printers: Set<String>) {
    guard !printers.isEmpty else { return }
    let handlers = observers.withLock { $0 }
    for printer in printers.sorted() { for handler in handlers { handler(printer) } }
  }

  // MARK: GRDB

  /// A write transaction on GRDB's writer; SQLite errors become ``StoreUnavailable``.
  func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
    try await health.guarded(write: true) { try await pool.write(body) }
  }

  /// A read; SQLite errors become ``StoreUnavailable``.
  func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
    try await health.guarded(write: false) { try await pool.read(body) }
  }
}

/// GRDB reads and writes an order through its `Codable` conformance.
extension Order: FetchableRecord, PersistableRecord {
  static let databaseTableName = "orders"
}

/// GRDB reads and writes a job through its `Codable` conformance: the columns are the
/// properties' names, spelled once in `Job` (and in the migration).
extension Job: FetchableRecord, PersistableRecord {
  static let databaseTableName = "job"
}
