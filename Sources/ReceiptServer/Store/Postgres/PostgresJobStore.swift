import Foundation
import Logging
import NIOCore
import PostgresNIO
@_spi(Internals) import ReceiptModel

/// Jobs in a PostgreSQL database shared by several daemons (`--db postgres://…`).
///
/// - Durability: a submission is committed (PostgreSQL's WAL flushed, `synchronous_commit` on)
///   before `insert` returns — a write run on its own is a procedure that commits inside its
///   `CALL` (`PostgresProcedures`: postgres-nio answers a plain statement before PostgreSQL
///   commits it); nothing is half-stored (one transaction per submission or order).
/// - Order: a submission holds the printer's submission lock (transaction-level, shared) from
///   before its `sequence` is drawn until it commits; a claim reads the printer's head under the
///   lock taken exclusively (`receipt_queue_head`), so every job with a lower sequence is
///   committed by then and FIFO holds however many daemons submit.
/// - Changes: one statement each, saved by compare-and-set on the row's version (`xmin`), the
///   rule applied again to the row as it is when another writer came first (see
///   `PostgresJobStore+Changes`); a submission is one statement too.
/// - Ownership: one daemon drives a printer at a time (see ``takeOwnership(of:)``).
/// - Wake-ups: a trigger `NOTIFY`s every change of a job; each daemon `LISTEN`s (see
///   ``PostgresListener``).
///
/// A thin driver over postgres-nio's async `PostgresClient` (a connection pool, run by
/// ``backgroundWork`` as a child of the daemon's run) and, per owned printer, a connection of its own: nothing waits on a
/// thread, and every operation is bounded (``timeout``): PostgreSQL unreachable or stalled is
/// ``StoreUnavailable`` (`503` with `Retry-After`), never a hung request.
final class PostgresJobStore: JobStore, Sendable {
  let client: PostgresClient
  let url: PostgresURL
  let logger: Logger
  /// This daemon, in `printer_owner` and in claims (host, process, start).
  let instance: String
  let health = Locked<String?>(nil)
  /// Printers this daemon owns: their ownership connection and fencing token.
  let owners = Locked<[String: PrinterOwnership]>([:])
  /// Jobs this daemon claimed and prints: the token of the ownership they were claimed under,
  /// and each job as last saved (``ClaimedJob``).
  let claims = Locked<[String: ClaimedJob]>([:])
  let observers = Locked<[@Sendable (String) -> Void]>([])
  let listener: PostgresListener
  /// Open once the schema is migrated (by ``backgroundWork``); every operation waits for it.
  let migrated = ReadyGate()
  /// Ended by ``close()`` or when the store goes: the background work ends with it.
  private let closing = AsyncStream<Void>.makeStream()
  /// Set once the background work started (it runs once: a pool runs once).
  private let backgroundStarted = Locked(false)
  /// How long one operation may take (a lease, a query, a transaction).
  let timeout: Duration

  /// A store on `url`; nothing connects until ``backgroundWork`` runs (the daemon runs it for as
  /// long as it serves). An unreachable database is reported by the first operation (``open()``
  /// at the daemon's start).
  init(url: PostgresURL, timeout: Duration = .seconds(15), logger: Logger = Logger(label: "receipt.postgres"))
    throws
  {
    self.url = url
    self.logger = logger
    self.timeout = timeout
    instance = "\(ProcessInfo.processInfo.hostName) pid \(getpid()) \(UUID().uuidString.prefix(8).lowercased())"
    var configuration = url.clientConfiguration
    configuration.options.maximumConnections = 16
    // The pool's own reports of connection attempts stay quiet: an unreachable database is
    // reported once, by the operation that needed it (StoreUnavailable, 503).
    var background = logger
    background.logLevel = .error
    client = PostgresClient(configuration: configuration, backgroundLogger: background)
    listener = PostgresListener(url: url, logger: logger)
  }

  deinit {
    closing.continuation.finish()
    // A store dropped without ``close()`` (a test's second daemon): its printers' connections
    // are closed, each kept until it is (postgres-nio requires a connection closed first).
    for ownership in owners.withLock({ Array($0.values) }) {
      let connection = ownership.connection
      connection.close().whenComplete { _ in _ = connection }
    }
  }

  // MARK: Lifecycle

  /// The pool's run loop, the schema migration and the change listener, as child tasks, until
  /// the store is closed or dropped or the caller is canceled. Holds the store weakly. It runs
  /// once: a second call returns at once.
  var backgroundWork: (@Sendable () async -> Void)? {
    let (client, listener, url, timeout, logger) = (self.client, self.listener, self.url, self.timeout, self.logger)
    let (migrated, closed, running, store) = (self.migrated, closing.stream, backgroundStarted, WeakStore(self))
    return {
      let starts = running.withLock { running in
        defer { running = true }
        return !running
      }
      guard starts else { return }
      // The migration ends early; the others run until the store closes (or goes), and the
      // first of them to end ends the rest.
      await withTaskGroup(of: Bool.self) { group in
        group.addTask {
          await client.run()
          return true
        }
        group.addTask {
          let name = url.redacted
          do {
            try await bounded(timeout, what: name) { _ in
              // A session of its own first: one that cannot be made fails here with its reason
              // (TLS, authentication, no such database), where the pool would try again until
              // the bound and say only that the server did not answer. A server not up yet
              // (refused, starting up) is tried again until just before the bound, as the pool
              // would: a daemon started with its database, at boot, waits for it.
              let session = try await PostgresJobStore.firstSession(
                url, until: .now + timeout - .seconds(1), logger: logger)
              try? await session.close()
              try await PostgresSchema.migrate(client, logger: logger)
            }
            migrated.open(.success(()))
          } catch let error as StatementError {
            migrated.open(.failure(StoreUnavailable(reason: "cannot migrate \(name): \(error)")))
          } catch let error as StoreUnavailable {
            migrated.open(.failure(StoreUnavailable(reason: "cannot reach \(name): \(error.reason)")))
          } catch let error as PSQLError {
            migrated.open(.failure(StoreUnavailable(reason: "cannot reach \(name): \(StatementError.describe(error))")))
          } catch {
            migrated.open(.failure(error))
          }
          return false
        }
        group.addTask {
          await listener.run(store: store)
          return true
        }
        group.addTask {
          for await _ in closed {}
          return true
        }
        while let ends = await group.next(), !ends {}
        group.cancelAll()
      }
    }
  }

  /// Returns once the schema is migrated and the listener hears the other daemons' changes
  /// (each at most ``timeout``).
  func open() async throws {
    try await waitUntilMigrated()
    if listener.listening.outcome == nil {
      let listening = listener.listening
      try await guarded {
        try await bounded(timeout, what: "\(url.redacted) (LISTEN)") { _ in try await listening.wait() }
      }
    }
  }

  /// Waits for the schema migration, which is bounded itself (``timeout``) once the background
  /// work runs; a store whose background work has not started within ``timeout`` is unavailable,
  /// not a hang. (Only the start is bounded here: a bound on the whole wait fired while a slow
  /// migration that had started just after the call was still within its own, and blamed the
  /// background work.)
  func waitUntilMigrated() async throws {
    if let outcome = migrated.outcome { return try outcome.get() }
    let (migrated, started) = (self.migrated, backgroundStarted)
    if !started.withLock({ $0 }) {
      try await bounded(timeout, what: "\(url.redacted) (its background work is not running)") { _ in
        while !started.withLock({ $0 }), migrated.outcome == nil { try await Task.sleep(for: .milliseconds(5)) }
      }
    }
    try await migrated.wait()
  }

  /// A session to `url`, tried again every quarter second until `deadline` while the failure
  /// is one that passes by itself (``mayPassByItself(_:)``); any other at once.
  static func firstSession(_ url: PostgresURL, until deadline: ContinuousClock.Instant, logger: Logger) async throws
    -> PostgresConnection
  {
    while true {
      do {
        return try await PostgresConnection.connect(
          configuration: url.configuration, id: Int.random(in: 1...1 << 30), logger: logger)
      } catch {
        guard mayPassByItself(error), ContinuousClock.now < deadline else { throw error }
        try await Task.sleep(for: .milliseconds(250))
      }
    }
  }

  /// Whether a failure to connect may pass by itself: the connection refused or lost (the
  /// server not up yet), PostgreSQL starting up (57P03) or full (53300). Not: TLS, a refused
  /// login, a missing database — trying again cannot mend those.
  static func mayPassByItself(_ error: any Error) -> Bool {
    guard let error = error as? PSQLError else { return false }
    if let state = error.serverInfo?[.sqlState] { return state == "57P03" || state == "53300" }
    guard error.code == .connectionError || error.code == .serverClosedConnection else { return false }
    return error.underlying.map { PostgresTLS.describe($0) == nil && !PostgresTLS.isTLSError($0) } ?? true
  }

  func close() async {
    // The background work first (the listener's task canceled, not failing on a closed socket).
    closing.continuation.finish()
    await listener.close()
    for (printer, ownership) in owners.withLock({ $0 }) {
      logger.debug("closing the ownership session of \(printer)")
      try? await ownership.connection.close()
    }
  }

  // MARK: Running queries

  /// Runs `body` with a pooled connection, bounded: PostgreSQL errors become
  /// ``StoreUnavailable`` (a statement the server refused stays a ``StatementError``).
  func withConnection<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws
    -> T
  {
    try await waitUntilMigrated()
    return try await guarded {
      try await bounded(self.timeout, what: self.url.redacted) { deadline in
        try await self.client.withConnection { connection in
          try deadline.check()
          return try await body(connection)
        }
      }
    }
  }

  /// Runs `body` in a transaction on a pooled connection: committed when it returns, rolled back
  /// when it throws (nothing half-stored).
  func transaction<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
    try await withConnection { connection in try await Self.transaction(on: connection, self.logger, body) }
  }

  /// `BEGIN`, `body`, `COMMIT` on a connection (`ROLLBACK` when `body` throws; its error is kept).
  static func transaction<T>(
    on connection: PostgresConnection, _ logger: Logger, _ body: (PostgresConnection) async throws -> T
  ) async throws -> T {
    try await connection.query("BEGIN", logger: logger)
    do {
      let result = try await body(connection)
      try await connection.query("COMMIT", logger: logger)
      return result
    } catch {
      _ = try? await connection.query("ROLLBACK", logger: logger)
      throw error
    }
  }

  /// The rows of a query on a pooled connection.
  func rows(_ query: PostgresQuery) async throws -> [PostgresRow] {
    try await withConnection { connection in try await connection.query(query, logger: self.logger).collect() }
  }

  func jobs(_ query: PostgresQuery) async throws -> [Job] {
    try await rows(query).map(Job.init(postgres:))
  }

  /// Runs a store operation, recording whether the database answers; errors of the connection
  /// become ``StoreUnavailable``.
  func guarded<T>(_ body: () async throws -> T) async throws -> T {
    do {
      let result = try await body()
      health.withLock { $0 = nil }
      return result
    } catch let error as StoreUnavailable {
      health.withLock { $0 = error.reason }
      throw error
    } catch let error as OwnershipLost {
      throw error
    } catch let error as PSQLError where error.code == .server {
      throw StatementError(error)
    } catch let error as StatementError {
      throw error
    } catch {
      let reason = "\(url.redacted): \(StatementError.describe(error))"
      health.withLock { $0 = reason }
      throw StoreUnavailable(reason: reason)
    }
  }

  // MARK: Reads

  func job(_ id: String) async throws -> Job? {
    try await jobs("SELECT \(unescaped: PostgresSchema.jobColumns) FROM job WHERE id = \(id)").first
  }

  func jobs(state: Job.State?, printer: String?, limit: Int, before cursor: Int64?) async throws -> [Job] {
    try await jobs(
      """
      SELECT \(unescaped: PostgresSchema.listColumns) FROM job
      WHERE (\(state?.rawValue)::text IS NULL OR state = \(state?.rawValue))
        AND (\(printer)::text IS NULL OR printer = \(printer))
        AND (\(cursor)::bigint IS NULL OR sequence < \(cursor))
      ORDER BY sequence DESC LIMIT \(limit)
      """)
  }

  func sweepable(_ sweep: Sweep, limit: Int) async throws -> [Job] {
    switch sweep {
    case .heldSince(let date):
      return try await jobs(
        """
        SELECT \(unescaped: PostgresSchema.listColumns) FROM job WHERE state = 'held' AND "createdAt" < \(date)
        ORDER BY sequence LIMIT \(limit)
        """)
    case .documentsEndedBefore(let date):
      return try await jobs(
        """
        SELECT \(unescaped: PostgresSchema.listColumns) FROM job
        WHERE "documentFormat" IS NOT NULL AND state IN ('completed', 'canceled', 'failed', 'dead')
          AND "updatedAt" < \(date) AND length(data) > 0
        ORDER BY sequence LIMIT \(limit)
        """)
    }
  }

  func head(of printer: String) async throws -> Job? {
    try await jobs(
      """
      SELECT \(unescaped: PostgresSchema.jobColumns) FROM job
      WHERE printer = \(printer) AND state IN (\(unescaped: PostgresSchema.openStates)) ORDER BY sequence LIMIT 1
      """
    ).first
  }

  func counts() async throws -> JobCounts {
    var result = JobCounts()
    for row in try await rows("SELECT printer, state, count(*) FROM job GROUP BY printer, state") {
      let (printer, state, count) = try row.decode((String, String, Int).self)
      result.add(count, printer: printer, state: state)
    }
    return result
  }

  func writeProblem() async -> String? {
    // A probe write, as on SQLite: the database answers and takes writes.
    do {
      _ = try await transaction { connection in
        try await connection.query(
          """
          INSERT INTO receipt_probe (instance, at) VALUES (\(self.instance), now())
          ON CONFLICT (instance) DO UPDATE SET at = excluded.at
          """, logger: self.logger)
      }
      return nil
    } catch {
      return health.withLock { $0 } ?? StatementError.describe(error)
    }
  }

  // MARK: Notifications

  func observeWork(_ handler: @escaping @Sendable (String) -> Void) {
    observers.withLock { $0.append(handler) }
  }

  func observeChanges(_ listener: any JobChangeListener) {
    self.listener.addChangeListener(listener)
  }

  // Wake-ups are sent by the statements that make them (`pg_notify('receipt_work', …)` in the
  // insert and in the compare-and-set save, delivered at commit, never after a rollback); every
  // daemon hears them on its `LISTEN` connection (``PostgresListener``) — this one included.

  /// Tells this daemon's work observers what the database announced.
  func announce(_ printer: String) {
    for handler in observers.withLock({ $0 }) { handler(printer) }
  }
}

/// A printer this daemon owns: the connection that holds its advisory lock, and the fencing
/// token (`instance#epoch`) its claims carry.
struct PrinterOwnership: Sendable {
  let connection: PostgresConnection
  let epoch: Int64
  let token: String
}

/// The server refused a statement (a constraint, a type error): the connection is fine.
struct StatementError: Error, CustomStringConvertible {
  let sqlState: String
  let message: String

  init(_ error: PSQLError) {
    sqlState = error.serverInfo?[.sqlState] ?? ""
    message = error.serverInfo?[.message] ?? "\(error.code)"
  }

  var description: String { "PostgreSQL refused a statement (\(sqlState)): \(message)" }
  /// A unique constraint was violated (another daemon stored the same key first).
  var isUniqueViolation: Bool { sqlState == "23505" }

  /// A PostgreSQL error's message without the query (which may hold an order's data): the
  /// server's message, else postgres-nio's code and what it wraps (`connectionError: …
  /// Connection refused`) — a `PSQLError` interpolated says only that it is not saying.
  static func describe(_ error: any Error) -> String {
    if let tls = PostgresTLS.describe(error) { return tls }
    guard let error = error as? PSQLError else { return "\(error)" }
    if let message = error.serverInfo?[.message] { return message }
    if error.code == .sslUnsupported {
      return
        "the server does not offer TLS, which sslmode requires: turn ssl on in its postgresql.conf, or use sslmode=prefer"
    }
    guard let underlying = error.underlying else { return "\(error.code)" }
    return "\(error.code): \(describe(underlying))"
  }
}
