public import Foundation
import PostgresNIO
import Synchronization

/// Submissions, claims and outcomes in the PostgreSQL store.
extension PostgresJobStore {
  public func submit(_ request: JobRequest, idempotencyKey: String?, now: Date) throws -> (job: Job, created: Bool) {
    try idempotent(key: idempotencyKey, find: { try self.job(idempotencyKey: $0).map { ($0, false) } }) {
      try transaction { connection in try insert(request, idempotencyKey: idempotencyKey, now: now, connection) }
    }
  }

  public func accept(_ request: JobRequest, idempotencyKey: String?) async throws -> (job: Job, created: Bool) {
    try await submitters.run { try self.submit(request, idempotencyKey: idempotencyKey, now: Date()) }
  }

  func job(idempotencyKey key: String) throws -> Job? {
    try jobs(#"SELECT \#(unescaped: PostgresSchema.jobColumns) FROM job WHERE "idempotencyKey" = \#(key)"#).first
  }

  /// Runs `insert`; when another daemon committed the same idempotency key first (a unique
  /// violation), answers what that key names.
  func idempotent<T>(key: String?, find: (String) throws -> T?, insert: () throws -> T) throws -> T {
    do {
      return try insert()
    } catch let error as StatementError where key != nil && error.isUniqueViolation {
      guard let key, let existing = try find(key) else { throw error }
      return existing
    }
  }

  /// Stores a job in an open transaction (or finds the one its key names). It holds the printer's
  /// submission lock shared (submissions to one printer still commit together, one WAL flush for
  /// many) from before its `sequence` is drawn until it commits; a claim takes the lock exclusively,
  /// so it sees every job with a lower sequence committed.
  func insert(
    _ request: JobRequest, idempotencyKey key: String?, orderID: String? = nil, now: Date,
    _ connection: PostgresConnection
  ) throws -> (job: Job, created: Bool) {
    try sessions.run(
      "SELECT pg_advisory_xact_lock_shared(\(PostgresSchema.submitLock), hashtext(\(request.printer)))",
      on: connection)
    if let key {
      let rows = try sessions.run(
        #"SELECT \#(unescaped: PostgresSchema.jobColumns) FROM job WHERE "idempotencyKey" = \#(key)"#,
        on: connection)
      if let row = rows.first { return (try Job(postgres: row), false) }
    }
    let id = UUID().uuidString.lowercased()
    let rows = try sessions.run(
      """
      INSERT INTO job (id, "idempotencyKey", printer, template, data, locale, copies, state, attempts, crashes,
        "createdAt", "updatedAt", "notBefore", "orderID", route, label, fallback, "reprintOf", reprint, interruptions)
      VALUES (\(id), \(key), \(request.printer), \(request.template), \(request.data), \(request.locale),
        \(request.copies), 'queued', 0, 0, \(now), \(now), \(now), \(orderID), \(request.route), \(request.label),
        \(request.fallback), \(request.reprintOf), \(request.reprint), 0)
      RETURNING \(unescaped: PostgresSchema.jobColumns)
      """, on: connection)
    guard let row = rows.first else { throw StoreUnavailable(reason: "the insert of job \(id) returned nothing") }
    return (try Job(postgres: row), true)
  }

  public func claimNext(printer: String, now: Date) throws -> Job? {
    // Only the owner claims, on the session that holds the printer: a daemon that lost its
    // session (and so the printer) cannot claim.
    guard let ownership = owners.withLock({ $0[printer] }) else { return nil }
    let session = ownership.session
    let rows = try guarded {
      try sessions.run("BEGIN", on: session)
      do {
        // Waits for submissions to this printer in flight (they hold the lock shared): every job
        // with a lower sequence is committed when the head is chosen.
        try sessions.run(
          "SELECT pg_advisory_xact_lock(\(PostgresSchema.submitLock), hashtext(\(printer)))", on: session)
        let rows = try sessions.run(
          """
          WITH head AS (
            SELECT sequence, state, "notBefore" FROM job
            WHERE printer = \(printer) AND state IN ('queued', 'printing')
            ORDER BY sequence LIMIT 1 FOR UPDATE SKIP LOCKED)
          UPDATE job SET state = 'printing', attempts = job.attempts + 1, stage = 'rendering', "updatedAt" = \(now),
            claim = \(ownership.token)
          FROM head
          WHERE job.sequence = head.sequence AND head.state = 'queued' AND head."notBefore" <= \(now)
            AND head.sequence = (SELECT min(sequence) FROM job
                                 WHERE printer = \(printer) AND state IN ('queued', 'printing'))
          RETURNING \(unescaped: PostgresSchema.jobColumns.split(separator: ",").map { "job." + $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ", "))
          """, on: session)
        try sessions.run("COMMIT", on: session)
        return rows
      } catch {
        _ = try? sessions.run("ROLLBACK", on: session)
        throw error
      }
    }
    guard let row = rows.first else { return nil }
    let job = try Job(postgres: row)
    claims.withLock { $0[job.id] = ownership.token }
    return job
  }

  /// Changes a job; a job this daemon claimed changes only while its claim stands (a daemon that
  /// lost the printer cannot overwrite what the new owner did). Returns the job as stored.
  @discardableResult
  func update(_ id: String, set: PostgresQuery, finished: Bool = false) throws -> Job? {
    let token = claims.withLock { $0[id] }
    var sql = "UPDATE job SET " + set.sql + " WHERE id = $\(set.binds.count + 1)"
    var binds = set.binds
    binds.append(id)
    if let token {
      sql += " AND claim = $\(binds.count + 1)"
      binds.append(token)
    }
    sql += " RETURNING " + PostgresSchema.jobColumns
    let job = try jobs(PostgresQuery(unsafeSQL: sql, binds: binds)).first
    if token != nil, job == nil, try self.job(id) != nil {
      claims.withLock { _ = $0.removeValue(forKey: id) }
      throw OwnershipLost(job: id)
    }
    if finished { claims.withLock { _ = $0.removeValue(forKey: id) } }
    return job
  }

  public func markSent(_ id: String, processID: String?, now: Date) throws -> Job {
    let set: PostgresQuery = """
      interruptions = interruptions + (CASE WHEN "sentAt" IS NULL THEN 0 ELSE 1 END),
      "sentAt" = \(now), "processID" = \(processID), stage = 'printer', "updatedAt" = \(now)
      """
    guard let job = try update(id, set: set) else { throw StoreUnavailable(reason: "job \(id) is not in the store") }
    return job
  }

  public func markHandedOver(_ id: String, now: Date) throws {
    try update(id, set: #"stage = 'printer', "updatedAt" = \#(now)"#)
  }

  public func complete(_ id: String, cupsJobID: Int?, documentSHA256: String?, now: Date) throws {
    try update(
      id,
      set: """
        state = 'completed', stage = NULL, "documentSHA256" = coalesce(\(documentSHA256), "documentSHA256"),
        "cupsJobID" = coalesce(\(cupsJobID), "cupsJobID"), error = NULL, "printerState" = NULL, "updatedAt" = \(now)
        """, finished: true)
  }

  public func fail(_ id: String, error: String, retryAt: Date?, state: Job.State, now: Date) throws {
    let next = retryAt == nil ? state.rawValue : Job.State.queued.rawValue
    try update(
      id,
      set: """
        error = \(error), "updatedAt" = \(now), state = \(next), stage = NULL, "notBefore" = coalesce(\(retryAt), "notBefore")
        """, finished: true)
  }

  public func progress(_ id: String, cupsJobID: Int, printerState: String?, now: Date) throws {
    try update(
      id,
      set: #""cupsJobID" = \#(cupsJobID), stage = 'printer', "printerState" = \#(printerState), "updatedAt" = \#(now)"#)
  }

  public func requeue(_ id: String, now: Date) throws {
    try update(id, set: #"state = 'queued', stage = NULL, "updatedAt" = \#(now)"#, finished: true)
  }

  public func cancel(_ id: String, now: Date) throws -> Job? {
    let canceled = try jobs(
      #"""
      UPDATE job SET state = 'canceled', "updatedAt" = \#(now) WHERE id = \#(id) AND state = 'queued'
      RETURNING \#(unescaped: PostgresSchema.jobColumns)
      """#
    ).first
    return try canceled ?? job(id)
  }

  public func retry(_ id: String, now: Date) throws -> Job? {
    let retried = try jobs(
      #"""
      UPDATE job SET state = 'queued', attempts = 0, "notBefore" = \#(now), "updatedAt" = \#(now)
      WHERE id = \#(id) AND state IN ('failed', 'dead')
      RETURNING \#(unescaped: PostgresSchema.jobColumns)
      """#
    ).first
    return try retried ?? job(id)
  }
}

/// Another daemon took the printer over (this one lost its database session): the job is
/// theirs now, and this daemon must not record anything more about it.
struct OwnershipLost: Error, CustomStringConvertible {
  let job: String
  var description: String { "job \(job) was taken over by another daemon (this one lost its printer)" }
}
