import Foundation
import PostgresNIO
@_spi(Internals) import ReceiptModel

/// Writes in the PostgreSQL store: submissions, and loading, locking and saving jobs around the
/// queue's rules (which are not here: see `Job+Rules`).
extension PostgresJobStore {
  func insert(_ submission: Submission) async throws -> Inserted {
    let now = Date()
    do {
      return try await transaction { connection in try await self.insert(submission, now: now, connection) }
    } catch let error as StatementError where error.isUniqueViolation {
      // Another daemon committed the same idempotency key first: answer what that key names.
      let key: String? =
        switch submission {
        case .job(_, let key), .order(_, let key), .reprint(_, let key): key
        }
      guard let key, let existing = try await existing(submission, key: key) else { throw error }
      return existing
    }
  }

  private func insert(_ submission: Submission, now: Date, _ connection: PostgresConnection) async throws -> Inserted {
    switch submission {
    case .job(let request, let key):
      let (job, created) = try await insert(request, idempotencyKey: key, now: now, connection)
      return .job(job, created: created)
    case .order(let request, let key):
      if let key, let existing = try await order(idempotencyKey: key, connection) {
        return .order(existing.0, existing.1, created: false)
      }
      let order = Order(
        id: UUID().uuidString.lowercased(), idempotencyKey: key, data: request.data, locale: request.locale,
        routes: request.routes?.joined(separator: ","), createdAt: now)
      try await connection.query(
        """
        INSERT INTO orders (id, "idempotencyKey", data, locale, routes, "createdAt")
        VALUES (\(order.id), \(key), \(order.data), \(order.locale), \(order.routes), \(now))
        """, logger: logger)
      var jobs: [Job] = []
      for ticket in request.tickets {
        jobs.append(try await insert(ticket, idempotencyKey: nil, orderID: order.id, now: now, connection).job)
      }
      return .order(order, jobs, created: true)
    case .reprint(let original, let key):
      // The printer's submission lock, taken exclusively, numbers concurrent reprints in turn.
      try await connection.query(
        "SELECT pg_advisory_xact_lock(\(PostgresSchema.submitLock), hashtext(\(original.printer)))", logger: logger)
      if let key, let existing = try await job(idempotencyKey: key, connection) {
        return .job(existing, created: false)
      }
      let count = try await connection.query(
        #"SELECT count(*) FROM job WHERE "reprintOf" = \#(original.id)"#, logger: logger
      ).collect()
      let earlier = try count.first?.decode(Int.self) ?? 0
      let (job, created) = try await insert(
        .reprint(of: original, earlierReprints: earlier), idempotencyKey: key, now: now, connection)
      return .job(job, created: created)
    }
  }

  /// What an idempotency key names, read after a unique violation.
  private func existing(_ submission: Submission, key: String) async throws -> Inserted? {
    try await transaction { connection in
      if case .order = submission {
        return try await self.order(idempotencyKey: key, connection).map { .order($0.0, $0.1, created: false) }
      }
      return try await self.job(idempotencyKey: key, connection).map { .job($0, created: false) }
    }
  }

  /// Stores a job in an open transaction (or finds the one its key names). It holds the printer's
  /// submission lock shared (submissions to one printer still commit together, one WAL flush for
  /// many) from before its `sequence` is drawn until it commits; a claim takes the lock exclusively,
  /// so it sees every job with a lower sequence committed.
  private func insert(
    _ request: JobRequest, idempotencyKey key: String?, orderID: String? = nil, now: Date,
    _ connection: PostgresConnection
  ) async throws -> (job: Job, created: Bool) {
    try await connection.query(
      "SELECT pg_advisory_xact_lock_shared(\(PostgresSchema.submitLock), hashtext(\(request.printer)))",
      logger: logger)
    if let key, let existing = try await job(idempotencyKey: key, connection) { return (existing, false) }
    // The job as the queue's rule makes it (`Job.init`); the database numbers it.
    let job = Job(
      request, id: UUID().uuidString.lowercased(), sequence: 0, idempotencyKey: key, orderID: orderID, now: now)
    let columns = JobColumn.allCases.filter { $0 != .sequence }
    var bindings = PostgresBindings()
    try PostgresRowEncoder.bind(columns.map(\.rawValue), from: try PostgresRowEncoder.columns(of: job), into: &bindings)
    // The wake-up the rule gives a new job (its number aside, the job is the one stored), sent in
    // the same statement: one round trip fewer per submission (`NOTIFY` is delivered at commit).
    bindings.append(Job.printersToWake(from: nil, to: job).sorted())
    let sql = """
      WITH inserted AS (
        INSERT INTO job (\(columns.map(\.quoted).joined(separator: ", ")))
        VALUES (\((1...columns.count).map { "$\($0)" }.joined(separator: ", ")))
        RETURNING \(PostgresSchema.jobColumns))
      SELECT inserted.*,
        (SELECT count(pg_notify('receipt_work', printer)) FROM unnest($\(columns.count + 1)::text[]) AS printer) AS woken
      FROM inserted
      """
    let rows = try await connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger).collect()
    guard let row = rows.first else { throw StoreUnavailable(reason: "the insert of job \(job.id) returned nothing") }
    return (try Job(postgres: row), true)
  }

  private func job(idempotencyKey key: String, _ connection: PostgresConnection) async throws -> Job? {
    try await connection.query(
      #"SELECT \#(unescaped: PostgresSchema.jobColumns) FROM job WHERE "idempotencyKey" = \#(key)"#, logger: logger
    ).collect().first.map(Job.init(postgres:))
  }

  // MARK: Changing jobs

  func update(_ id: String, _ change: @escaping @Sendable (inout Job) -> Bool) async throws -> (
    Job, changed: Bool
  )? {
    let token = claims.withLock { $0[id] }
    let result: (Job, Bool)?
    do {
      result = try await transaction { connection in
        let rows = try await connection.query(
          "SELECT \(unescaped: PostgresSchema.jobColumns), claim FROM job WHERE id = \(id) FOR UPDATE",
          logger: self.logger
        ).collect()
        guard let row = rows.first else { return nil }
        // Fencing: a job this daemon claimed changes only while it still carries this daemon's claim.
        if let token, try row.makeRandomAccess()["claim"].decode(String?.self) != token {
          throw OwnershipLost(job: id)
        }
        let original = try Job(postgres: row)
        var job = original
        let changed = change(&job)
        if changed {
          try await self.save(job, original: original, connection)
          try await self.wake(Job.printersToWake(from: original, to: job), connection)
        }
        return (job, changed)
      }
    } catch let lost as OwnershipLost {
      claims.withLock { _ = $0.removeValue(forKey: id) }
      throw lost
    }
    if let (job, _) = result, job.state != .printing { claims.withLock { _ = $0.removeValue(forKey: id) } }
    return result.map { ($0.0, changed: $0.1) }
  }

  /// The claim, on the connection that holds the printer (a daemon that lost it cannot claim),
  /// under the printer's submission lock taken exclusively: every job with a lower sequence is
  /// committed when the head is chosen.
  func updateHead(of printer: String, _ change: @escaping @Sendable (inout Job) -> Bool) async throws -> (
    Job, changed: Bool
  )? {
    guard let ownership = owners.withLock({ $0[printer] }) else { return nil }
    let logger = self.logger
    let result: (Job, Bool)? = try await guarded {
      try await bounded(timeout, what: url.redacted, onTimeout: { try? await ownership.connection.close() }) { _ in
        try await Self.transaction(on: ownership.connection, logger) { connection in
          try await connection.query(
            "SELECT pg_advisory_xact_lock(\(PostgresSchema.submitLock), hashtext(\(printer)))", logger: logger)
          let rows = try await connection.query(
            """
            SELECT \(unescaped: PostgresSchema.jobColumns) FROM job
            WHERE printer = \(printer) AND state IN (\(unescaped: PostgresSchema.openStates))
              AND sequence = (
                SELECT min(sequence) FROM job WHERE printer = \(printer) AND state IN (\(unescaped: PostgresSchema.openStates)))
            FOR UPDATE SKIP LOCKED
            """, logger: logger
          ).collect()
          guard let row = rows.first else { return nil }
          let original = try Job(postgres: row)
          var job = original
          let changed = change(&job)
          if changed {
            try await self.save(job, claim: ownership.token, connection)
            try await self.wake(Job.printersToWake(from: original, to: job), connection)
          }
          return (job, changed)
        }
      }
    }
    guard let (job, changed) = result else { return nil }
    if changed { claims.withLock { $0[job.id] = ownership.token } }
    return (job, changed: changed)
  }

  func updateAll(printer: String, state: Job.State, _ change: @escaping @Sendable (inout Job) -> Bool)
    async throws -> [Job]
  {
    try await transaction { connection in
      let rows = try await connection.query(
        """
        SELECT \(unescaped: PostgresSchema.jobColumns) FROM job WHERE printer = \(printer) AND state = \(state.rawValue)
        ORDER BY sequence FOR UPDATE
        """, logger: self.logger
      ).collect()
      var changed: [Job] = []
      var wakes: Set<String> = []
      for row in rows {
        let original = try Job(postgres: row)
        var job = original
        guard change(&job) else { continue }
        try await self.save(job, connection)
        wakes.formUnion(Job.printersToWake(from: original, to: job))
        changed.append(job)
      }
      try await self.wake(wakes, connection)
      return changed
    }
  }

  /// Writes back every field a rule can change (``JobColumn/changeable``). A job that is no
  /// longer printing carries no claim; `claim` (a token) records this daemon's claim of it. The
  /// document (`data`) is written only when it changed from `original` (a held job's document
  /// arriving, or the document removed after its retention).
  private func save(_ job: Job, claim: String? = nil, original: Job? = nil, _ connection: PostgresConnection)
    async throws
  {
    var columns = JobColumn.changeable
    if let original, original.data != job.data { columns.append(.data) }
    var bindings = PostgresBindings()
    try PostgresRowEncoder.bind(columns.map(\.rawValue), from: try PostgresRowEncoder.columns(of: job), into: &bindings)
    let assignments = columns.enumerated().map { "\($1.quoted) = $\($0 + 1)" }.joined(separator: ", ")
    let state = columns.count + 1
    bindings.append(job.state.rawValue)
    bindings.append(claim)
    bindings.append(job.sequence)
    let sql = """
      UPDATE job SET \(assignments),
        claim = CASE WHEN $\(state) <> 'printing' THEN NULL ELSE coalesce($\(state + 1), claim) END
      WHERE sequence = $\(state + 2)
      """
    try await connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger)
  }
}
