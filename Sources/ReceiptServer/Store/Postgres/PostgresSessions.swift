import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

/// The store's PostgreSQL connections: a small pool for queries and transactions, plus single
/// sessions for what must live on one connection (a printer's ownership lock, `LISTEN`).
///
/// The store's callers are synchronous (a printer's worker thread, request handlers), so queries
/// run through postgres-nio's `EventLoopFuture` interface on the store's own event loop and the
/// caller waits for the answer. That loop serves nothing else, so a caller on any other thread,
/// Swift's concurrency pool included, cannot hold up the answer it waits for. (postgres-nio's
/// `PostgresClient` pool is async-only: waiting for it from a pool thread could starve it.)
/// Every wait is bounded: a query without an answer in `timeout` closes its connection.
final class PostgresSessions: Sendable {
  let configuration: PostgresConnection.Configuration
  /// What the database is called in messages (the URL without its password).
  let name: String
  let group: MultiThreadedEventLoopGroup
  let logger: Logger
  let timeout: TimeAmount
  private let idle = Mutex<[PostgresConnection]>([])
  private let nextID = Atomic<Int>(1)
  /// Most idle connections kept for reuse.
  private let keep = 16

  init(url: PostgresURL, timeout: TimeAmount = .seconds(15), logger: Logger) {
    configuration = url.configuration
    name = url.redacted
    group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    self.timeout = timeout
    self.logger = logger
  }

  /// Opens a new session (not from the pool).
  func connect() throws -> PostgresConnection {
    let id = nextID.add(1, ordering: .relaxed).oldValue
    do {
      return try PostgresConnection.connect(
        on: group.next(), configuration: configuration, id: id, logger: logger
      ).wait()
    } catch {
      throw StoreUnavailable(reason: "cannot connect to \(name): \(Self.describe(error))")
    }
  }

  /// Runs `query` on `connection` and waits (at most `timeout`) for all its rows.
  @discardableResult
  func run(_ query: PostgresQuery, on connection: PostgresConnection) throws -> [PostgresRow] {
    guard !connection.isClosed else { throw StoreUnavailable(reason: "\(name): the connection is closed") }
    // The answer, or a timeout: a query on a connection that died unnoticed must not wait for ever.
    let answer = connection.eventLoop.makePromise(of: PostgresQueryResult.self)
    connection.query(query, logger: logger).cascade(to: answer)
    let timer = connection.eventLoop.scheduleTask(in: timeout) {
      answer.fail(
        StoreUnavailable(reason: "\(self.name) did not answer in \(self.timeout.nanoseconds / 1_000_000_000) s"))
      connection.hangUp()
    }
    defer { timer.cancel() }
    do {
      return try answer.futureResult.wait().rows
    } catch let error as PSQLError where error.code == .server {
      throw StatementError(error)
    } catch let error as StoreUnavailable {
      throw error
    } catch {
      throw StoreUnavailable(reason: "\(name): \(Self.describe(error))")
    }
  }

  /// Runs `body` with a pooled connection; a connection that failed is closed, not reused.
  func withConnection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
    let connection = try idle.withLock { $0.popLast() }.flatMap { $0.isClosed ? nil : $0 } ?? connect()
    do {
      let result = try body(connection)
      checkIn(connection)
      return result
    } catch let error as StatementError {
      checkIn(connection)
      throw error
    } catch {
      connection.hangUp()
      throw error
    }
  }

  /// Runs `body` in a transaction on a pooled connection: committed when it returns, rolled back
  /// when it throws (nothing half-stored).
  func transaction<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
    try withConnection { connection in
      try run("BEGIN", on: connection)
      do {
        let result = try body(connection)
        try run("COMMIT", on: connection)
        return result
      } catch {
        _ = try? run("ROLLBACK", on: connection)
        throw error
      }
    }
  }

  private func checkIn(_ connection: PostgresConnection) {
    guard !connection.isClosed else { return }
    let kept = idle.withLock { idle in
      guard idle.count < keep else { return false }
      idle.append(connection)
      return true
    }
    if !kept { connection.hangUp() }
  }

  /// Closes every connection and stops the event loop (from a thread that is not the loop's).
  func shutdown() {
    let connections = idle.withLock { idle in
      defer { idle = [] }
      return idle
    }
    for connection in connections { try? (connection.close() as EventLoopFuture<Void>).wait() }
    try? group.syncShutdownGracefully()
  }

  /// A PostgreSQL error's message without the query (which may hold an order's data).
  static func describe(_ error: any Error) -> String {
    guard let error = error as? PSQLError else { return "\(error)" }
    if let message = error.serverInfo?[.message] { return message }
    return "\(error.code)"
  }
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
}

extension PostgresConnection {
  /// Closes the connection; waits for it to be closed unless called on its event loop
  /// (postgres-nio requires a connection closed before it is released).
  func hangUp() {
    let closed = close() as EventLoopFuture<Void>
    if !eventLoop.inEventLoop { try? closed.wait() }
  }
}
