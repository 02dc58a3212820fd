import Foundation
import PostgresNIO
import ReceiptModel

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
      let number = (try count.first?.decode(Int.self) ?? 0) + 1
      let (job, created) = try await insert(
        .reprint(of: original, number: number), idempotencyKey: key, now: now, connection)
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
    let id = UUID().uuidString.lowercased()
    let rows = try await connection.query(
      """
      INSERT INTO job (id, "idempotencyKey", printer, template, data, locale, copies, state, attempts, crashes,
        "createdAt", "updatedAt", "notBefore", "orderID", route, label, fallback, "reprintOf", reprint, interruptions,
        "documentFormat", "jobName", "user", "printOptions")
      VALUES (\(id), \(key), \(request.printer), \(request.template), \(request.data), \(request.locale),
        \(request.copies), \(request.held ? "held" : "queued"), 0, 0, \(now), \(now), \(now), \(orderID),
        \(request.route), \(request.label), \(request.fallback), \(request.reprintOf), \(request.reprint), 0,
        \(request.documentFormat), \(request.jobName), \(request.user), \(request.printOptions))
      RETURNING \(unescaped: PostgresSchema.jobColumns)
      """, logger: logger
    ).collect()
    guard let row = rows.first else { throw StoreUnavailable(reason: "the insert of job \(id) returned nothing") }
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
        if let token, try row.makeRandomAccess()[PostgresSchema.claimColumn].decode(String?.self) != token {
          throw OwnershipLost(job: id)
        }
        let original = try Job(postgres: row)
        var job = original
        let changed = change(&job)
        if changed { try await self.save(job, original: original, connection) }
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
            WHERE printer = \(printer) AND state IN ('queued', 'printing')
              AND sequence = (SELECT min(sequence) FROM job WHERE printer = \(printer) AND state IN ('queued', 'printing'))
            FOR UPDATE SKIP LOCKED
            """, logger: logger
          ).collect()
          guard let row = rows.first else { return nil }
          var job = try Job(postgres: row)
          let changed = change(&job)
          if changed { try await self.save(job, claim: ownership.token, connection) }
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
      for row in rows {
        var job = try Job(postgres: row)
        guard change(&job) else { continue }
        try await self.save(job, connection)
        changed.append(job)
      }
      return changed
    }
  }

  /// Writes back every field a rule can change. A job that is no longer printing carries no
  /// claim; `claim` (a token) records this daemon's claim of it. The document (`data`) is
  /// written only when it changed from `original` (a held job's document arriving).
  private func save(_ job: Job, claim: String? = nil, original: Job? = nil, _ connection: PostgresConnection)
    async throws
  {
    if let original, original.data != job.data || original.documentFormat != job.documentFormat {
      try await connection.query(
        #"UPDATE job SET data = \#(job.data), "documentFormat" = \#(job.documentFormat) WHERE sequence = \#(job.sequence)"#,
        logger: logger)
    }
    try await connection.query(
      """
      UPDATE job SET printer = \(job.printer), state = \(job.state.rawValue), attempts = \(job.attempts),
        crashes = \(job.crashes), error = \(job.error), "cupsJobID" = \(job.cupsJobID),
        "printerState" = \(job.printerState), "updatedAt" = \(job.updatedAt), "notBefore" = \(job.notBefore),
        "fallbackFor" = \(job.fallbackFor), "failoverReason" = \(job.failoverReason),
        "documentSHA256" = \(job.documentSHA256), "sentAt" = \(job.sentAt), "processID" = \(job.processID),
        interruptions = \(job.interruptions), stage = \(job.stage?.rawValue),
        claim = CASE WHEN \(job.state.rawValue) <> 'printing' THEN NULL ELSE coalesce(\(claim), claim) END
      WHERE sequence = \(job.sequence)
      """, logger: logger)
  }
}
