import Foundation
import PostgresNIO
@_spi(Internals) import ReceiptModel

/// Changing jobs in the PostgreSQL store by compare-and-set: the queue's rule (`Job+Rules`) is
/// applied in Swift to the job as last read, and saved with one `UPDATE … WHERE id = … AND xmin =
/// …` — PostgreSQL's row version — that also sends the rule's wake-ups; a row changed meanwhile
/// (by another daemon, or another request) is read again and the rule applied again. No
/// transaction is opened and no row stays locked between statements.
///
/// Round trips per change: one for a job this daemon claimed (it keeps the claimed job and its
/// version, ``ClaimedJob``), two otherwise (read, save); a claim is two (the head, read under
/// the printer's lock by `receipt_queue_head`, then the save). A save on its own is a procedure
/// that commits inside its `CALL` (`PostgresProcedures`): postgres-nio answers a plain statement
/// before PostgreSQL commits it. Before, each was four to six (`BEGIN`, the lock,
/// `SELECT … FOR UPDATE`, `UPDATE`, `NOTIFY`, `COMMIT`). A job
/// that keeps changing under a change (three conflicts) is changed under its row's lock instead,
/// which always ends.
extension PostgresJobStore {
  /// How often a change is tried by compare-and-set before it takes the row's lock instead (a
  /// job many writers change at once: each conflict means another writer saved in between).
  static let optimisticAttempts = 3
  /// How often a claim is tried against a head that keeps changing before the store gives up
  /// (``StoreUnavailable``, 503; the worker tries again).
  static let maximumConflicts = 16

  func update(_ id: String, _ change: @escaping @Sendable (inout Job) -> Bool) async throws -> (
    Job, changed: Bool
  )? {
    var claimed = claims.withLock { $0[id] }
    let token = claimed?.token
    var attempts = 0
    while attempts < Self.optimisticAttempts {
      let current: VersionedJob
      if let known = claimed?.versioned {
        current = known
      } else {
        attempts += 1
        guard let read = try await versioned(id) else {
          forget(id)
          return nil
        }
        try fence(read, token: token)
        current = read
      }
      var job = current.job
      guard change(&job) else {
        // Unchanged by the rule: said only of the row as stored, never of the copy kept.
        if claimed != nil {
          claimed = nil
          continue
        }
        return (job, false)
      }
      let changed = job
      let saved = try await withConnection { connection in
        try await self.save(changed, over: current, claim: nil, committing: true, connection)
      }
      if let version = saved {
        remember(job, version: version, token: token)
        return (job, true)
      }
      claimed = nil
    }
    return try await lockedUpdate(id, token: token, change)
  }

  /// The change under the row's lock (`SELECT … FOR UPDATE` in a transaction): always makes
  /// progress, however many writers change the job at once.
  private func lockedUpdate(_ id: String, token: String?, _ change: @escaping @Sendable (inout Job) -> Bool)
    async throws -> (Job, changed: Bool)?
  {
    let outcome: (Job, version: String?)?? = try await transaction { connection in
      let rows = try await connection.query(
        "SELECT \(unescaped: PostgresSchema.versionedColumns) FROM job WHERE id = \(id) FOR UPDATE", logger: self.logger
      ).collect()
      guard let row = rows.first else { return .some(nil) }
      let current = try VersionedJob(row)
      try self.fence(current, token: token)
      var job = current.job
      guard change(&job) else { return (job, version: nil) }
      guard let version = try await self.save(job, over: current, claim: nil, connection) else {
        throw StoreUnavailable(reason: "job \(id) changed while locked")
      }
      return (job, version: version)
    }
    guard let outcome, let (job, version) = outcome else {
      forget(id)
      return nil
    }
    guard let version else { return (job, changed: false) }
    remember(job, version: version, token: token)
    return (job, changed: true)
  }

  /// Fencing: a job this daemon claimed changes only while it still carries this daemon's claim.
  private func fence(_ current: VersionedJob, token: String?) throws {
    guard let token, current.claim != token else { return }
    forget(current.job.id)
    throw OwnershipLost(job: current.job.id)
  }

  /// The claim, on the connection that holds the printer (a daemon that lost it cannot claim):
  /// the head as `receipt_queue_head` reads it under the printer's submission lock taken
  /// exclusively (every job with a lower sequence is committed then), changed by the rule, saved
  /// by compare-and-set with this daemon's claim.
  func updateHead(of printer: String, _ change: @escaping @Sendable (inout Job) -> Bool) async throws -> (
    Job, changed: Bool
  )? {
    guard let ownership = owners.withLock({ $0[printer] }) else { return nil }
    let (logger, timeout, name) = (self.logger, self.timeout, url.redacted)
    for _ in 0..<Self.maximumConflicts {
      let outcome: ClaimOutcome = try await guarded {
        try await bounded(timeout, what: name, onTimeout: { try? await ownership.connection.close() }) { _ in
          var bindings = PostgresBindings()
          bindings.append(printer)
          let rows = try await ownership.connection.rows(QueueHeadStatement(bindings: bindings), logger: logger)
          guard let row = rows.first else { return .empty }
          let current = try VersionedJob(row)
          var job = current.job
          guard change(&job) else { return .unchanged(job) }
          guard
            let version = try await self.save(
              job, over: current, claim: ownership.token, committing: true, ownership.connection)
          else { return .conflict }
          return .saved(job, version: version)
        }
      }
      switch outcome {
      case .empty: return nil
      case .unchanged(let job): return (job, changed: false)
      case .conflict: continue
      case .saved(let job, let version):
        remember(job, version: version, token: ownership.token)
        return (job, changed: true)
      }
    }
    throw StoreUnavailable(reason: "the head of \(printer) kept changing under \(Self.maximumConflicts) claims")
  }

  /// Every job of `printer` in `state` (a take-over's recovery, a failover: rare), in one
  /// transaction with the rows locked.
  func updateAll(printer: String, state: Job.State, _ change: @escaping @Sendable (inout Job) -> Bool)
    async throws -> [Job]
  {
    let changed = try await transaction { connection in
      let rows = try await connection.query(
        """
        SELECT \(unescaped: PostgresSchema.versionedColumns) FROM job
        WHERE printer = \(printer) AND state = \(state.rawValue) ORDER BY sequence FOR UPDATE
        """, logger: self.logger
      ).collect()
      var changed: [Job] = []
      for row in rows {
        let current = try VersionedJob(row)
        var job = current.job
        guard change(&job) else { continue }
        guard try await self.save(job, over: current, claim: nil, connection) != nil else {
          throw StoreUnavailable(reason: "job \(job.id) changed while locked")
        }
        changed.append(job)
      }
      return changed
    }
    for job in changed { forget(job.id) }
    return changed
  }

  // MARK: Compare-and-set

  /// Saves `job` over the row `current` was read from, if that row is unchanged (its `xmin`):
  /// every field a rule can change (``JobColumn/changeable``), the document only when it changed;
  /// a job no longer printing carries no claim, `claim` (a token) records this daemon's. Sends
  /// the rule's wake-ups (``Job/printersToWake(from:to:)``) in the same statement, only when the
  /// row was saved (`NOTIFY` is delivered at commit). Returns the row's new version, or nil when
  /// it had changed (nothing written). `committing`: the save commits itself (the save
  /// procedure's `CALL`, answered once committed: see `PostgresProcedures`); else it is a
  /// statement of the caller's transaction.
  func save(
    _ job: Job, over current: VersionedJob, claim: String?, committing: Bool = false,
    _ connection: PostgresConnection
  ) async throws -> String? {
    let withDocument = current.job.data != job.data
    let columns = withDocument ? SaveJobAndDocumentStatement.columns : SaveJobStatement.columns
    var bindings = PostgresBindings()
    try PostgresRowEncoder.bind(columns.map(\.rawValue), from: try PostgresRowEncoder.columns(of: job), into: &bindings)
    bindings.append(job.state.rawValue)
    bindings.append(claim)
    bindings.append(job.id)
    bindings.append(current.version)
    bindings.append(Job.printersToWake(from: current.job, to: job).sorted())
    let rows =
      switch (committing, withDocument) {
      case (true, true): try await connection.committed(SaveJobAndDocumentCall(bindings: bindings), logger: logger)
      case (true, false): try await connection.committed(SaveJobCall(bindings: bindings), logger: logger)
      case (false, true): try await connection.rows(SaveJobAndDocumentStatement(bindings: bindings), logger: logger)
      case (false, false): try await connection.rows(SaveJobStatement(bindings: bindings), logger: logger)
      }
    // The statement returns no row when the row had changed; the procedure, a NULL version.
    return try rows.first?.makeRandomAccess()["version"].decode(String?.self)
  }

  /// Job `id` as stored, with its row version and claim.
  private func versioned(_ id: String) async throws -> VersionedJob? {
    var bindings = PostgresBindings()
    bindings.append(id)
    let statement = VersionedJobStatement(bindings: bindings)
    return try await withConnection { connection in
      try await connection.rows(statement, logger: self.logger).first.map(VersionedJob.init)
    }
  }

  /// Keeps a job this daemon claimed and still prints, as saved (its next change is one round
  /// trip); forgets any other.
  private func remember(_ job: Job, version: String, token: String?) {
    claims.withLock { claims in
      if let token, job.state == .printing {
        claims[job.id] = ClaimedJob(token: token, versioned: VersionedJob(job: job, version: version, claim: token))
      } else {
        claims.removeValue(forKey: job.id)
      }
    }
  }

  private func forget(_ id: String) {
    claims.withLock { _ = $0.removeValue(forKey: id) }
  }
}

/// What one attempt at a claim found.
private enum ClaimOutcome: Sendable {
  /// The printer's queue is empty.
  case empty
  /// The rule left the head as it is (not due, or printing).
  case unchanged(Job)
  /// The head changed between the read and the save: read it again.
  case conflict
  case saved(Job, version: String)
}

/// A job as read from (or saved to) its row, with the row's version (`xmin`) and claim.
struct VersionedJob: Sendable {
  var job: Job
  var version: String
  var claim: String?

  init(job: Job, version: String, claim: String?) {
    (self.job, self.version, self.claim) = (job, version, claim)
  }

  /// A row with the job's columns, `rowVersion` and `claim`.
  init(_ row: PostgresRow) throws {
    job = try Job(postgres: row)
    let cells = row.makeRandomAccess()
    version = try cells["rowVersion"].decode(String.self)
    claim = try cells["claim"].decode(String?.self)
  }
}

/// A job this daemon claimed: the token of the ownership it was claimed under, and the job as
/// this daemon last saved it (its next change is tried on that copy first).
struct ClaimedJob: Sendable {
  let token: String
  let versioned: VersionedJob
}
