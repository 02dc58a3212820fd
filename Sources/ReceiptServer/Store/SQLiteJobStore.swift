public import Foundation
public import GRDB
import Synchronization

/// Jobs in a SQLite file through GRDB, in WAL mode with `synchronous=FULL`: every write is a
/// committed transaction whose WAL frames are fsynced before it returns, so an accepted job
/// survives a crash and a power cut. (GRDB's default for WAL is NORMAL, durable across a process
/// crash only.)
public final class SQLiteJobStore: JobStore, Sendable {
  private let pool: DatabasePool
  let committer: GroupCommitter
  let health = StoreHealth()
  private let observers = Mutex<[@Sendable (String) -> Void]>([])
  private let changes = JobChangeObserver()

  /// Opens (and migrates) the database at `path`.
  public init(path: String) throws {
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
    var migrator = DatabaseMigrator()
    migrator.registerMigration("v1") { db in
      try db.create(table: "job") { t in
        t.column("sequence", .integer).primaryKey(autoincrement: true)
        t.column("id", .text).notNull().unique()
        t.column("idempotencyKey", .text).unique()
        t.column("printer", .text).notNull().indexed()
        t.column("template", .text).notNull()
        t.column("data", .blob).notNull()
        t.column("locale", .text)
        t.column("copies", .integer).notNull()
        t.column("state", .text).notNull().indexed()
        t.column("attempts", .integer).notNull()
        t.column("error", .text)
        t.column("cupsJobID", .integer)
        t.column("createdAt", .datetime).notNull()
        t.column("updatedAt", .datetime).notNull()
        t.column("notBefore", .datetime).notNull()
      }
    }
    migrator.registerMigration("v2: printer state") { db in
      try db.alter(table: "job") { t in t.add(column: "printerState", .text) }
    }
    migrator.registerMigration("v3: crashes, daemon state") { db in
      try db.alter(table: "job") { t in t.add(column: "crashes", .integer).notNull().defaults(to: 0) }
      try db.create(table: "daemon") { t in
        t.primaryKey("key", .text)
        t.column("value", .text).notNull()
      }
    }
    migrator.registerMigration("v4: orders, routes, failover, reprints, archive") { db in
      try db.create(table: "orders") { t in
        t.primaryKey("id", .text)
        t.column("idempotencyKey", .text).unique()
        t.column("data", .blob).notNull()
        t.column("locale", .text)
        t.column("routes", .text)
        t.column("createdAt", .datetime).notNull()
      }
      try db.alter(table: "job") { t in
        t.add(column: "orderID", .text).indexed()
        t.add(column: "route", .text)
        t.add(column: "label", .text)
        t.add(column: "fallback", .text)
        t.add(column: "fallbackFor", .text)
        t.add(column: "failoverReason", .text)
        t.add(column: "reprintOf", .text).indexed()
        t.add(column: "reprint", .integer).notNull().defaults(to: 0)
        t.add(column: "documentSHA256", .text)
      }
    }
    migrator.registerMigration("v5: confirmed prints") { db in
      try db.alter(table: "job") { t in
        t.add(column: "sentAt", .datetime)
        t.add(column: "processID", .text)
        t.add(column: "interruptions", .integer).notNull().defaults(to: 0)
      }
    }
    migrator.registerMigration("v6: stage") { db in
      try db.alter(table: "job") { t in t.add(column: "stage", .text) }
    }
    let pool = self.pool
    try health.guarded(write: true) { try migrator.migrate(pool) }
    committer = GroupCommitter(pool: pool, health: health)
    pool.add(transactionObserver: changes, extent: .databaseLifetime)
  }

  /// The value of `PRAGMA synchronous` on the store's connections (2 = FULL).
  public func synchronousMode() throws -> Int {
    try pool.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1 }
  }

  public func submit(_ request: JobRequest, idempotencyKey: String?, now: Date) throws -> (job: Job, created: Bool) {
    let result = try write { db in try Self.insert(request, idempotencyKey: idempotencyKey, now: now, db) }
    if result.1 { notify(request.printer) }
    return result
  }

  public func observeWork(_ handler: @escaping @Sendable (String) -> Void) {
    observers.withLock { $0.append(handler) }
  }

  public func observeChanges(_ listener: any JobChangeListener) {
    changes.add(listener)
  }

  /// Tells the observers a printer has work (after the commit).
  func notify(_ printer: String) {
    for handler in observers.withLock({ $0 }) { handler(printer) }
  }

  public func nextDue(printer: String) throws -> Date? {
    try read { db in
      let head = try Job.filter(Column("printer") == printer)
        .filter([Job.State.queued.rawValue, Job.State.printing.rawValue].contains(Column("state")))
        .order(Column("sequence")).fetchOne(db)
      guard let head, head.state == .queued else { return nil }
      return head.notBefore
    }
  }

  /// A write transaction; SQLite errors become ``StoreUnavailable``.
  func write<T>(_ body: (Database) throws -> T) throws -> T {
    try health.guarded(write: true) { try pool.write(body) }
  }

  /// A read; SQLite errors become ``StoreUnavailable``.
  func read<T>(_ body: (Database) throws -> T) throws -> T {
    try health.guarded(write: false) { try pool.read(body) }
  }

  public func accept(_ request: JobRequest, idempotencyKey: String?) async throws -> (job: Job, created: Bool) {
    guard case .job(let job, let created) = try await committer.submit(.job(request, key: idempotencyKey)) else {
      fatalError("the committer answers a job with a job")
    }
    if created { notify(request.printer) }
    return (job, created)
  }

  /// Stores a job in an open write transaction, or finds the one its key names.
  static func insert(
    _ request: JobRequest, idempotencyKey: String?, orderID: String? = nil, now: Date, _ db: Database
  ) throws -> (Job, Bool) {
    if let key = idempotencyKey, let existing = try Job.filter(Column("idempotencyKey") == key).fetchOne(db) {
      return (existing, false)
    }
    // The next number of the AUTOINCREMENT sequence: never reused, also after deletions.
    let last = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'job'") ?? 0
    let job = Job(
      id: UUID().uuidString.lowercased(), sequence: last + 1, idempotencyKey: idempotencyKey, printer: request.printer,
      template: request.template, data: request.data, locale: request.locale, copies: request.copies,
      state: .queued, attempts: 0, crashes: 0, error: nil, cupsJobID: nil, printerState: nil, createdAt: now,
      updatedAt: now, notBefore: now, orderID: orderID, route: request.route, label: request.label,
      fallback: request.fallback, reprintOf: request.reprintOf, reprint: request.reprint, interruptions: 0)
    try job.insert(db)
    return (job, true)
  }

  public func job(_ id: String) throws -> Job? {
    try read { try Job.filter(Column("id") == id).fetchOne($0) }
  }

  public func jobs(state: Job.State?, printer: String?, limit: Int, before cursor: Int64?) throws -> [Job] {
    try read { db in
      var request = Job.order(Column("sequence").desc).limit(limit)
      if let state { request = request.filter(Column("state") == state.rawValue) }
      if let printer { request = request.filter(Column("printer") == printer) }
      if let cursor { request = request.filter(Column("sequence") < cursor) }
      return try request.fetchAll(db)
    }
  }

  public func claimNext(printer: String, now: Date) throws -> Job? {
    try write { db in
      let head = try Job.filter(Column("printer") == printer)
        .filter([Job.State.queued.rawValue, Job.State.printing.rawValue].contains(Column("state")))
        .order(Column("sequence")).fetchOne(db)
      guard var job = head, job.state == .queued, job.notBefore <= now else { return nil }
      job.claim(now: now)
      try job.update(db)
      return job
    }
  }

  public func markSent(_ id: String, processID: String?, now: Date) throws -> Job {
    let job = try update(id) { $0.markSent(processID: processID, now: now) }
    guard let job else { throw StoreUnavailable(reason: "job \(id) is not in the store") }
    return job
  }

  public func markHandedOver(_ id: String, now: Date) throws {
    try update(id) { $0.markHandedOver(now: now) }
  }

  public func complete(_ id: String, cupsJobID: Int?, documentSHA256: String?, now: Date) throws {
    try update(id) { job in
      job.state = .completed
      job.stage = nil
      job.documentSHA256 = documentSHA256 ?? job.documentSHA256
      job.cupsJobID = cupsJobID ?? job.cupsJobID
      job.error = nil
      job.printerState = nil
      job.updatedAt = now
    }
  }

  public func fail(_ id: String, error: String, retryAt: Date?, state: Job.State, now: Date) throws {
    try update(id) { job in
      job.error = error
      job.stage = nil
      job.updatedAt = now
      if let retryAt {
        job.state = .queued
        job.notBefore = retryAt
      } else {
        job.state = state
      }
    }
  }

  public func cancel(_ id: String, now: Date) throws -> Job? {
    let job: Job? = try write { db in
      guard var job = try Job.filter(Column("id") == id).fetchOne(db) else { return nil }
      if job.state == .queued {
        job.state = .canceled
        job.updatedAt = now
        try job.update(db)
      }
      return job
    }
    // The job behind a canceled head may be due now.
    if let job, job.state == .canceled { notify(job.printer) }
    return job
  }

  public func retry(_ id: String, now: Date) throws -> Job? {
    let job: Job? = try write { db in
      guard var job = try Job.filter(Column("id") == id).fetchOne(db) else { return nil }
      if job.state == .failed || job.state == .dead {
        job.state = .queued
        job.attempts = 0
        job.notBefore = now
        job.updatedAt = now
        try job.update(db)
      }
      return job
    }
    if let job, job.state == .queued { notify(job.printer) }
    return job
  }

  public func progress(_ id: String, cupsJobID: Int, printerState: String?, now: Date) throws {
    try update(id) { job in
      job.cupsJobID = cupsJobID
      job.stage = .printer
      job.printerState = printerState
      job.updatedAt = now
    }
  }

  public func recover(maxCrashes: Int, now: Date) throws -> [Job] {
    try write { db in
      let clean = try String.fetchOne(db, sql: "SELECT value FROM daemon WHERE key = 'cleanShutdown'") == "1"
      try db.execute(sql: "DELETE FROM daemon WHERE key = 'cleanShutdown'")
      var jobs = try Job.filter(Column("state") == Job.State.printing.rawValue).order(Column("sequence")).fetchAll(db)
      for i in jobs.indices {
        jobs[i].recoverFromCrash(counted: !clean, maxCrashes: maxCrashes, now: now)
        try jobs[i].update(db)
      }
      return jobs
    }
  }

  public func markCleanShutdown() throws {
    try write { db in
      try db.execute(sql: "INSERT OR REPLACE INTO daemon (key, value) VALUES ('cleanShutdown', '1')")
    }
  }

  public func writeProblem() -> String? {
    guard health.problem != nil else { return nil }
    // A probe write: after a disk-full or I/O error, ready again once a write works.
    do {
      try write { db in
        try db.execute(sql: "INSERT OR REPLACE INTO daemon (key, value) VALUES ('probe', ?)", arguments: ["\(Date())"])
      }
      return nil
    } catch {
      return health.problem ?? "\(error)"
    }
  }

  public func interrupted() throws -> [Job] {
    try read {
      try Job.filter(Column("state") == Job.State.printing.rawValue).order(Column("sequence")).fetchAll($0)
    }
  }

  public func requeue(_ id: String, now: Date) throws {
    let job = try update(id) { job in
      job.state = .queued
      job.stage = nil
      job.updatedAt = now
    }
    if let job { notify(job.printer) }
  }

  public func counts() throws -> [String: [String: Int]] {
    try read { db in
      var result: [String: [String: Int]] = [:]
      let rows = try Row.fetchAll(db, sql: "SELECT printer, state, COUNT(*) AS n FROM job GROUP BY printer, state")
      for row in rows {
        let printer: String = row["printer"]
        let state: String = row["state"]
        result[printer, default: [:]][state] = row["n"]
      }
      return result
    }
  }

  /// Changes a job in one write transaction; returns it as stored, nil if there is none.
  @discardableResult
  private func update(_ id: String, _ change: (inout Job) -> Void) throws -> Job? {
    try write { db in
      guard var job = try Job.filter(Column("id") == id).fetchOne(db) else { return nil }
      change(&job)
      try job.update(db)
      return job
    }
  }
}

/// GRDB reads and writes an order through its `Codable` conformance.
extension Order: FetchableRecord, PersistableRecord {
  public static let databaseTableName = "orders"
}

/// GRDB reads and writes a job through its `Codable` conformance: the columns are the
/// properties' names, spelled once in `Job` (and in the migration).
extension Job: FetchableRecord, PersistableRecord {
  public static let databaseTableName = "job"
}
