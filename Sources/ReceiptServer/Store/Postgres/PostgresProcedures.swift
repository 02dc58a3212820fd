import Foundation
import Logging
import PostgresNIO

/// The writes that run on their own — a submission, a claim's save, a change's save — as
/// procedures that commit inside their `CALL`: the `CALL`'s answer comes after the commit, so a
/// write is one round trip and its answer says it is stored.
///
/// postgres-nio ends a statement at its `CommandComplete`, but PostgreSQL commits a statement
/// that runs on its own only at the `Sync` after it; a commit that fails in between (a deferred
/// constraint, a server stopped as in a crash) had been answered as stored. Each such write was
/// therefore followed by a `SELECT 1` whose answer confirmed the commit — a second round trip
/// per write, four per printed job. A procedure that ends with `COMMIT` commits before its
/// `CALL` is answered, and a refused commit is the `CALL`'s own error (checked on PostgreSQL
/// 15 through the extended protocol). The same statements inside a transaction (an order's
/// tickets, a change under the row's lock) stay plain statements: a `COMMIT` there would end
/// the caller's transaction.
///
/// Each procedure's name carries a digest of its definition (`receipt_submit_1a2b3c4d5e6f`),
/// which is made from ``JobColumn``: a daemon whose columns differ (a newer one, mid-upgrade)
/// installs and calls its own, and the older daemons keep theirs. They are installed with the
/// migrations, in their transaction and under their lock (``install(on:logger:)``).
struct PostgresProcedure: Sendable {
  let name: String
  /// `CREATE PROCEDURE name(…) …`.
  let definition: String

  /// A procedure named `prefix` and the digest of `signatureAndBody` (everything after the name).
  init(prefix: String, signatureAndBody: String) {
    name = prefix + "_" + ArchiveFile.sha256(Data(signatureAndBody.utf8)).prefix(12)
    definition = "CREATE PROCEDURE \(name)\(signatureAndBody)"
  }
}

enum PostgresProcedures {
  /// Every procedure the store calls.
  static let all = [submit, save, saveWithDocument]

  /// A new job, committed: the job's columns (``JobColumn``, all of them, in order) as `INOUT`
  /// parameters — the stored row comes back in them, named as the columns, with `sequence`
  /// NULL when a job with the same idempotency key was stored first — then the printer (its
  /// submission lock, taken shared until the commit) and the printers to wake.
  static let submit: PostgresProcedure = {
    let columns = JobColumn.allCases
    let inserted = columns.filter { $0 != .sequence }
    let position = Dictionary(uniqueKeysWithValues: columns.enumerated().map { ($1, $0 + 1) })
    let (printer, wake) = (columns.count + 1, columns.count + 2)
    let parameters = columns.map { "INOUT \($0.quoted) \($0.postgresType)" } + ["text", "text[]"]
    return PostgresProcedure(
      prefix: "receipt_submit",
      signatureAndBody: """
        (\(parameters.joined(separator: ", ")))
        LANGUAGE plpgsql AS $$
        #variable_conflict use_column
        BEGIN
          PERFORM pg_advisory_xact_lock_shared(\(PostgresSchema.submitLock), hashtext($\(printer)));
          INSERT INTO job (\(inserted.map(\.quoted).joined(separator: ", ")))
          VALUES (\(inserted.map { "$\(position[$0]!)" }.joined(separator: ", ")))
          ON CONFLICT ("idempotencyKey") DO NOTHING
          RETURNING \(columns.map { "job.\($0.quoted)" }.joined(separator: ", "))
          INTO \(columns.map(\.quoted).joined(separator: ", "));
          IF FOUND THEN
            PERFORM pg_notify('receipt_work', woken) FROM unnest($\(wake)) AS woken;
          ELSE
            "sequence" := NULL;
          END IF;
          COMMIT;
        END $$
        """)
  }()

  /// A change saved by compare-and-set, committed (see `PostgresJobStore.save`): the changeable
  /// columns, then the state, the claim, the job's ID, the row version it was read at and the
  /// printers to wake; `INOUT version` is the row's new version, NULL when it had changed.
  static let save = saveProcedure(JobColumn.changeable, prefix: "receipt_save")

  /// ``save`` for a change that also replaced the job's document.
  static let saveWithDocument = saveProcedure(JobColumn.changeable + [.data], prefix: "receipt_save_document")

  private static func saveProcedure(_ columns: [JobColumn], prefix: String) -> PostgresProcedure {
    let next = columns.count + 1
    let assignments = columns.enumerated().map { "\($1.quoted) = $\($0 + 1)" }.joined(separator: ", ")
    let parameters = columns.map(\.postgresType) + ["text", "text", "text", "text", "text[]", #"INOUT "version" text"#]
    return PostgresProcedure(
      prefix: prefix,
      signatureAndBody: """
        (\(parameters.joined(separator: ", ")))
        LANGUAGE plpgsql AS $$
        BEGIN
          UPDATE job SET \(assignments),
            claim = CASE WHEN $\(next) <> 'printing' THEN NULL ELSE coalesce($\(next + 1), job.claim) END
          WHERE job.id = $\(next + 2) AND job.xmin = $\(next + 3)::xid
          RETURNING job.xmin::text INTO "version";
          IF FOUND THEN
            PERFORM pg_notify('receipt_work', woken) FROM unnest($\(next + 4)) AS woken;
          END IF;
          COMMIT;
        END $$
        """)
  }

  /// Creates the procedures this daemon calls that the database does not have yet; run in the
  /// migrations' transaction, under their lock (daemons starting together take turns).
  static func install(on connection: PostgresConnection, logger: Logger) async throws {
    for procedure in all {
      let found = try await connection.query(
        "SELECT to_regproc(\(procedure.name)) IS NOT NULL", logger: logger
      ).collect()
      if try found.first?.decode(Bool.self) == true { continue }
      try await connection.query(PostgresQuery(unsafeSQL: procedure.definition), logger: logger)
    }
  }
}

/// ``PostgresProcedures/submit``, called.
struct SubmitJobCall: PreparedJobStatement {
  static let sql =
    "CALL \(PostgresProcedures.submit.name)("
    + (1...JobColumn.allCases.count + 2).map { "$\($0)" }.joined(separator: ", ") + ")"
  static let bindingDataTypes = JobColumn.allCases.map(\.parameterType) + [.text, .textArray]
  let bindings: PostgresBindings
}

/// ``PostgresProcedures/save``, called; the bindings of ``SaveJobStatement``.
struct SaveJobCall: PreparedJobStatement {
  static let sql = saveCall(PostgresProcedures.save, SaveJobStatement.columns)
  static let bindingDataTypes = SaveJobStatement.bindingDataTypes
  let bindings: PostgresBindings
}

/// ``PostgresProcedures/saveWithDocument``, called; the bindings of
/// ``SaveJobAndDocumentStatement``.
struct SaveJobAndDocumentCall: PreparedJobStatement {
  static let sql = saveCall(PostgresProcedures.saveWithDocument, SaveJobAndDocumentStatement.columns)
  static let bindingDataTypes = SaveJobAndDocumentStatement.bindingDataTypes
  let bindings: PostgresBindings
}

private func saveCall(_ procedure: PostgresProcedure, _ columns: [JobColumn]) -> String {
  "CALL \(procedure.name)(" + (1...columns.count + 5).map { "$\($0)" }.joined(separator: ", ") + ", NULL)"
}
