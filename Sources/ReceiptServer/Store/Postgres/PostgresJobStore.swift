public import Foundation
public import Logging
import NIOCore
import PostgresNIO
import Synchronization

/// Jobs in a PostgreSQL database shared by several daemons (`--db postgres://…`).
///
/// - Durability: a submission is committed (PostgreSQL's WAL flushed, `synchronous_commit` on)
///   before `accept` returns; nothing is half-stored (one transaction per submission or order).
/// - Order: submissions to one printer take a transaction-level advisory lock, so `sequence`
///   order is commit order; a claim takes the printer's head with `FOR UPDATE SKIP LOCKED` and
///   only if nothing older is open, so FIFO holds however many daemons claim.
/// - Ownership: one daemon drives a printer at a time (see ``own(printer:maxCrashes:now:)``).
/// - Wake-ups: a trigger `NOTIFY`s every change of a job; each daemon `LISTEN`s (see
///   ``PostgresListener``).
public final class PostgresJobStore: JobStore, Sendable {
  let sessions: PostgresSessions
  let logger: Logger
  /// This daemon, in `printer_owner` and in claims (host, process, start).
  let instance: String
  let health = Mutex<String?>(nil)
  /// Printers this daemon owns: their ownership session and fencing token.
  let owners = Mutex<[String: PrinterOwnership]>([:])
  /// Jobs this daemon claimed, with the token of the ownership they were claimed under.
  let claims = Mutex<[String: String]>([:])
  let listener: PostgresListener
  /// Submissions run here: they wait for PostgreSQL on these threads, not on the concurrency pool.
  let submitters = BlockingExecutor(name: "receipt postgres", threads: 8, capacity: 4096)

  /// Connects, migrates the schema and starts listening for changes.
  public init(url: PostgresURL, logger: Logger = Logger(label: "receipt.postgres")) throws {
    sessions = PostgresSessions(url: url, logger: logger)
    self.logger = logger
    instance = "\(ProcessInfo.processInfo.hostName) pid \(getpid()) \(UUID().uuidString.prefix(8).lowercased())"
    listener = PostgresListener(sessions: sessions, logger: logger)
    do {
      try PostgresSchema.migrate(sessions)
    } catch let error as StatementError {
      sessions.shutdown()
      throw StoreUnavailable(reason: "cannot migrate \(url.redacted): \(error)")
    } catch {
      sessions.shutdown()
      throw error
    }
    listener.start(store: self)
  }

  deinit {
    listener.stop()
    submitters.shutdown(threads: 8)
    let owned = owners.withLock { $0 }
    for ownership in owned.values { ownership.session.hangUp() }
    let sessions = self.sessions
    Thread.detachNewThread { sessions.shutdown() }
  }

  /// Runs a store operation, recording whether the database answers.
  func guarded<T>(_ body: () throws -> T) throws -> T {
    do {
      let result = try body()
      health.withLock { $0 = nil }
      return result
    } catch let error as StoreUnavailable {
      health.withLock { $0 = error.reason }
      throw error
    } catch let error as StatementError where !error.isUniqueViolation {
      throw StoreUnavailable(reason: error.description)
    }
  }

  func query(_ query: PostgresQuery) throws -> [PostgresRow] {
    try guarded { try sessions.withConnection { try sessions.run(query, on: $0) } }
  }

  func jobs(_ query: PostgresQuery) throws -> [Job] {
    try self.query(query).map(Job.init(postgres:))
  }

  func transaction<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
    try guarded { try sessions.transaction(body) }
  }

  // MARK: Observers

  public func observeWork(_ handler: @escaping @Sendable (String) -> Void) {
    listener.addWorkHandler(handler)
  }

  public func observeChanges(_ listener: any JobChangeListener) {
    self.listener.addChangeListener(listener)
  }

  // MARK: Reading

  public func job(_ id: String) throws -> Job? {
    try jobs("SELECT \(unescaped: PostgresSchema.jobColumns) FROM job WHERE id = \(id)").first
  }

  public func jobs(state: Job.State?, printer: String?, limit: Int, before cursor: Int64?) throws -> [Job] {
    try jobs(
      """
      SELECT \(unescaped: PostgresSchema.jobColumns) FROM job
      WHERE (\(state?.rawValue)::text IS NULL OR state = \(state?.rawValue))
        AND (\(printer)::text IS NULL OR printer = \(printer))
        AND (\(cursor)::bigint IS NULL OR sequence < \(cursor))
      ORDER BY sequence DESC LIMIT \(limit)
      """)
  }

  public func nextDue(printer: String) throws -> Date? {
    let head = try jobs(
      """
      SELECT \(unescaped: PostgresSchema.jobColumns) FROM job
      WHERE printer = \(printer) AND state IN ('queued', 'printing') ORDER BY sequence LIMIT 1
      """
    ).first
    guard let head, head.state == .queued else { return nil }
    return head.notBefore
  }

  public func interrupted() throws -> [Job] {
    try jobs("SELECT \(unescaped: PostgresSchema.jobColumns) FROM job WHERE state = 'printing' ORDER BY sequence")
  }

  public func counts() throws -> [String: [String: Int]] {
    var result: [String: [String: Int]] = [:]
    for row in try query("SELECT printer, state, count(*) FROM job GROUP BY printer, state") {
      let (printer, state, count) = try row.decode((String, String, Int).self)
      result[printer, default: [:]][state] = count
    }
    return result
  }

  public func writeProblem() -> String? {
    do {
      _ = try query("SELECT 1")
      return nil
    } catch {
      return health.withLock { $0 } ?? "\(error)"
    }
  }

  /// Recovery happens per printer when a daemon takes it over (``own(printer:maxCrashes:now:)``):
  /// other daemons may be printing their printers' jobs right now.
  public func recover(maxCrashes: Int, now: Date) throws -> [Job] { [] }

  /// A clean stop is recorded per printer when its worker gives it up (``release(printer:)``).
  public func markCleanShutdown() throws {}
}

/// A printer this daemon owns: the session that holds its advisory lock, and the fencing token
/// (`instance#epoch`) its claims carry.
struct PrinterOwnership: Sendable {
  let session: PostgresConnection
  let epoch: Int64
  let token: String
}
