import Logging
import PostgresNIO

/// The statements every job goes through — its submission, its claim, each change's save (on
/// their own, the `CALL`s of `PostgresProcedures`; in a transaction, the statements here) and the
/// read a conflict needs — as prepared statements: PostgreSQL parses, analyses and plans each
/// once per connection instead of once per job (about a third of its CPU per submission went
/// there, `perf` during `make bench-postgres`). postgres-nio prepares a statement on a
/// connection the first time it runs there.
///
/// Two rules keep a prepared statement right for the life of its connection:
/// - Its parameters are typed as the values bound to them (``JobColumn/parameterType``): a
///   statement keeps the types it was prepared with, and a NULL in its first execution would
///   leave a parameter's type to PostgreSQL's guess (an `integer` column's), which a later
///   64-bit value would not match. (Today every integer column that can be NULL is `bigint`,
///   so the guess would be right; the declared types keep it right for the next column.)
/// - Its result names every column it returns (never `*`): a migration that adds a column to
///   `job` while another daemon runs must not change a prepared statement's result ("cached plan
///   must not change result type").
protocol PreparedJobStatement: PostgresPreparedStatement where Row == PostgresRow {
  var bindings: PostgresBindings { get }
}

extension PreparedJobStatement {
  func makeBindings() throws -> PostgresBindings { bindings }
  func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
}

extension PostgresConnection {
  /// The rows of `statement`, prepared on this connection the first time it runs here.
  ///
  /// postgres-nio keeps a preparation that failed for the connection's life: every later use of
  /// the statement there answers the same error (a `lock_timeout` while a migration held the
  /// table would stop every submission on that connection for good). So an error the server
  /// answered closes the connection — the pool opens a fresh one, a printer's session is taken
  /// again — unless it is an integrity violation (class 23: an idempotency key stored meanwhile),
  /// which only an execution can raise.
  ///
  /// A connection seen closed is not written to: postgres-nio drops a statement written to a
  /// closed connection without ever answering it (the caller's bound would end the wait, 15 s
  /// later).
  func rows<Statement: PreparedJobStatement>(_ statement: Statement, logger: Logger) async throws -> [PostgresRow] {
    guard !isClosed else { throw SessionClosed() }
    do {
      var rows: [PostgresRow] = []
      for try await row in try await execute(statement, logger: logger) { rows.append(row) }
      return rows
    } catch let error as PSQLError where error.code == .server {
      if error.serverInfo?[.sqlState]?.hasPrefix("23") != true {
        logger.warning("closing a PostgreSQL session after \(Statement.name) failed: \(StatementError.describe(error))")
        try? await close()
      }
      throw error
    }
  }
}

extension PostgresConnection {
  /// The rows of a procedure's `CALL` that commits its own write (``PostgresProcedures``):
  /// answered only once PostgreSQL has committed it. A refusal — of the write or of its commit
  /// (a deferred constraint, a server shutting down) — means nothing was stored, and the same
  /// request can be sent again: ``StoreUnavailable`` (the API's `503` with `Retry-After`), unless
  /// it is an integrity violation (class 23), which the caller answers. A connection that ends
  /// before the answer leaves the write unknown; that is the pool's error, as for any statement.
  func committed<Statement: PreparedJobStatement>(_ statement: Statement, logger: Logger) async throws
    -> [PostgresRow]
  {
    do {
      return try await rows(statement, logger: logger)
    } catch let error as PSQLError where error.code == .server {
      guard error.serverInfo?[.sqlState]?.hasPrefix("23") != true else { throw error }
      throw StoreUnavailable(reason: "PostgreSQL did not commit the write: \(StatementError.describe(error))")
    }
  }
}

/// A statement was not sent: its connection had ended (a failed commit, a bound that closed it).
struct SessionClosed: Error, CustomStringConvertible {
  var description: String { "the PostgreSQL session had ended" }
}

/// A new job in the caller's transaction (an order's tickets, a reprint), and the wake-up its
/// rule gives (see `PostgresJobStore.insert`): the job's columns but `sequence` (the database
/// numbers it), then the printer (its submission lock, taken shared) and the printers to wake.
struct InsertJobStatement: PreparedJobStatement {
  static let columns = JobColumn.allCases.filter { $0 != .sequence }
  static let sql: String = {
    let values = columns.enumerated().map { "$\($0.offset + 1)::\($0.element.postgresType)" }
    return """
      WITH inserted AS (
        INSERT INTO job (\(columns.map(\.quoted).joined(separator: ", ")))
        SELECT \(values.joined(separator: ", "))
        FROM (SELECT pg_advisory_xact_lock_shared(\(PostgresSchema.submitLock), hashtext($\(columns.count + 1)))) AS submission
        ON CONFLICT ("idempotencyKey") DO NOTHING
        RETURNING \(PostgresSchema.jobColumns))
      SELECT inserted.*,
        (SELECT count(pg_notify('receipt_work', printer)) FROM unnest($\(columns.count + 2)::text[]) AS printer) AS woken
      FROM inserted
      """
  }()
  static let bindingDataTypes = columns.map(\.parameterType) + [.text, .textArray]
  let bindings: PostgresBindings
}

/// A change saved by compare-and-set in the caller's transaction (see `PostgresJobStore.save`):
/// the changeable columns, then the state, the claim, the job's ID, the row version it was read
/// at and the printers to wake.
struct SaveJobStatement: PreparedJobStatement {
  static let columns = JobColumn.changeable
  static let sql = saveSQL(columns)
  static let bindingDataTypes = saveTypes(columns)
  let bindings: PostgresBindings
}

/// ``SaveJobStatement`` for a change that also replaced the job's document (a reprint's banner):
/// a document unchanged is not written again.
struct SaveJobAndDocumentStatement: PreparedJobStatement {
  static let columns = JobColumn.changeable + [.data]
  static let sql = saveSQL(columns)
  static let bindingDataTypes = saveTypes(columns)
  let bindings: PostgresBindings
}

private func saveSQL(_ columns: [JobColumn]) -> String {
  let assignments = columns.enumerated().map { "\($1.quoted) = $\($0 + 1)" }.joined(separator: ", ")
  let next = columns.count + 1
  return """
    WITH saved AS (
      UPDATE job SET \(assignments),
        claim = CASE WHEN $\(next) <> 'printing' THEN NULL ELSE coalesce($\(next + 1), claim) END
      WHERE id = $\(next + 2) AND xmin = $\(next + 3)::text::xid
      RETURNING xmin::text AS version)
    SELECT saved.version,
      (SELECT count(pg_notify('receipt_work', printer)) FROM unnest($\(next + 4)::text[]) AS printer) AS woken
    FROM saved
    """
}

private func saveTypes(_ columns: [JobColumn]) -> [PostgresDataType] {
  columns.map(\.parameterType) + [.text, .text, .text, .text, .textArray]
}

/// The head of a printer's queue, read under the printer's submission lock taken exclusively
/// (`receipt_queue_head`), with its claim and row version; one parameter, the printer.
struct QueueHeadStatement: PreparedJobStatement {
  static let sql = """
    SELECT \((JobColumn.allCases.map { "(head).\($0.quoted)" } + ["(head).claim"]).joined(separator: ", ")), "rowVersion"
    FROM receipt_queue_head($1)
    """
  static let bindingDataTypes: [PostgresDataType] = [.text]
  let bindings: PostgresBindings
}

/// A job by ID with its claim and row version (``VersionedJob``); one parameter, the ID.
struct VersionedJobStatement: PreparedJobStatement {
  static let sql = "SELECT \(PostgresSchema.versionedColumns) FROM job WHERE id = $1"
  static let bindingDataTypes: [PostgresDataType] = [.text]
  let bindings: PostgresBindings
}

extension JobColumn {
  /// The type of the value a statement binds for the column (what postgres-nio encodes the
  /// job's property as: `Int` as `int8`, `Date` as `timestamptz`, `Data` as `bytea`).
  var parameterType: PostgresDataType {
    switch kind {
    case .integer: .int8
    case .text: .text
    case .blob: .bytea
    case .date: .timestamptz
    }
  }
}
