import Foundation
import PostgresNIO
@_spi(Internals) import ReceiptModel

/// Writes in the PostgreSQL store: submissions, and loading, locking and saving jobs around the
/// queue's rules (which are not here: see `Job+Rules`).
extension PostgresJobStore {
  func insert(_ submission: Submission) async throws -> Inserted {
    let now = Date()
    do {
      // A job is one `CALL` that commits before it is answered (one round trip: see
      // `PostgresProcedures`); an order's tickets and a reprint's number need several
      // statements, in one transaction.
      if case .job(let request, let key) = submission {
        return try await withConnection { connection in
          let (job, created) = try await self.insert(
            request, idempotencyKey: key, now: now, committing: true, connection)
          return .job(job, created: created)
        }
      }
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
        routes: request.routes, createdAt: now)
      try await connection.query(
        """
        INSERT INTO orders (id, "idempotencyKey", data, locale, routes, "createdAt")
        VALUES (\(order.id), \(key), \(order.data), \(order.locale), \(order.storedRoutes), \(now))
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

  /// Stores a job in one statement — committed by it (`committing`: the submit procedure's
  /// `CALL`, answered once committed), or in the caller's transaction — or finds the one its key
  /// names. The statement takes the printer's submission lock shared before the row (and its
  /// `sequence`) is made, and holds it until the transaction commits (submissions to one printer
  /// still commit together, one WAL flush for many); a claim takes the lock exclusively
  /// (`receipt_queue_head`), so it sees every job with a lower sequence committed. A key already
  /// stored is no error (`ON CONFLICT DO NOTHING`, which waits for a submission of the same key
  /// in flight): the job it names is read then.
  private func insert(
    _ request: JobRequest, idempotencyKey key: String?, orderID: String? = nil, now: Date, committing: Bool = false,
    _ connection: PostgresConnection
  ) async throws -> (job: Job, created: Bool) {
    // The job as the queue's rule makes it (`Job.init`); the database numbers it.
    let new = Job(
      request, id: UUID().uuidString.lowercased(), sequence: 0, idempotencyKey: key, orderID: orderID, now: now)
    var bindings = PostgresBindings()
    // The procedure takes every column (its `INOUT` parameters; `sequence` is the database's).
    let columns = (committing ? JobColumn.allCases : InsertJobStatement.columns).map(\.rawValue)
    try PostgresRowEncoder.bind(columns, from: try PostgresRowEncoder.columns(of: new), into: &bindings)
    // The wake-up the rule gives a new job (its number aside, the job is the one stored), sent in
    // the same statement (`NOTIFY` is delivered at commit).
    bindings.append(request.printer)
    bindings.append(Job.printersToWake(from: nil, to: new).sorted())
    if committing {
      let rows = try await connection.committed(SubmitJobCall(bindings: bindings), logger: logger)
      // One row: the job as stored, or NULLs when its key was stored first.
      if let row = rows.first, try row.makeRandomAccess()["sequence"].decode(Int64?.self) != nil {
        return (try Job(postgres: row), true)
      }
    } else if let row = try await connection.rows(InsertJobStatement(bindings: bindings), logger: logger).first {
      return (try Job(postgres: row), true)
    }
    guard let key, let existing = try await job(idempotencyKey: key, connection) else {
      throw StoreUnavailable(reason: "the insert of job \(new.id) returned nothing")
    }
    return (existing, false)
  }

  private func job(idempotencyKey key: String, _ connection: PostgresConnection) async throws -> Job? {
    try await connection.query(
      #"SELECT \#(unescaped: PostgresSchema.jobColumns) FROM job WHERE "idempotencyKey" = \#(key)"#, logger: logger
    ).collect().first.map(Job.init(postgres:))
  }
}
