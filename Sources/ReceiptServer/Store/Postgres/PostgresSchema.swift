import Foundation
import PostgresNIO

/// The PostgreSQL store's schema, as numbered migrations (the SQLite store's are GRDB
/// migrations). Each runs once, in one transaction, recorded in `receipt_migrations`; daemons
/// starting at the same time take turns through a transaction-level advisory lock.
enum PostgresSchema {
  /// Advisory-lock namespaces (the first key of the two-key form): migrations, printer
  /// ownership (session locks), submissions to one printer (transaction locks).
  static let migrationLock: Int32 = 0x7263_7000
  static let ownerLock: Int32 = 0x7263_7001
  static let submitLock: Int32 = 0x7263_7002

  /// The job's columns, in the order ``Job/init(postgres:)`` reads them.
  static let jobColumns = """
    sequence, id, "idempotencyKey", printer, template, data, locale, copies, state, attempts, crashes, error, \
    "cupsJobID", "printerState", "createdAt", "updatedAt", "notBefore", "orderID", route, label, fallback, \
    "fallbackFor", "failoverReason", "reprintOf", reprint, "documentSHA256", "sentAt", "processID", interruptions
    """

  static let migrations: [(version: Int, name: String, sql: [String])] = [
    (
      1, "jobs, orders, printer owners, change notifications",
      [
        """
        CREATE TABLE job (
          sequence bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
          id text NOT NULL UNIQUE,
          "idempotencyKey" text UNIQUE,
          printer text NOT NULL,
          template text NOT NULL,
          data bytea NOT NULL,
          locale text,
          copies integer NOT NULL,
          state text NOT NULL,
          attempts integer NOT NULL,
          crashes integer NOT NULL DEFAULT 0,
          error text,
          "cupsJobID" bigint,
          "printerState" text,
          "createdAt" timestamptz NOT NULL,
          "updatedAt" timestamptz NOT NULL,
          "notBefore" timestamptz NOT NULL,
          "orderID" text,
          route text,
          label text,
          fallback text,
          "fallbackFor" text,
          "failoverReason" text,
          "reprintOf" text,
          reprint integer NOT NULL DEFAULT 0,
          "documentSHA256" text,
          "sentAt" timestamptz,
          "processID" text,
          interruptions integer NOT NULL DEFAULT 0,
          claim text
        )
        """,
        #"CREATE INDEX job_open ON job (printer, sequence) WHERE state IN ('queued', 'printing')"#,
        "CREATE INDEX job_state ON job (state, sequence)",
        "CREATE INDEX job_printer ON job (printer, sequence)",
        #"CREATE INDEX job_order ON job ("orderID")"#,
        #"CREATE INDEX job_reprint ON job ("reprintOf")"#,
        """
        CREATE TABLE orders (
          id text PRIMARY KEY,
          "idempotencyKey" text UNIQUE,
          data bytea NOT NULL,
          locale text,
          routes text,
          "createdAt" timestamptz NOT NULL
        )
        """,
        """
        CREATE TABLE printer_owner (
          printer text PRIMARY KEY,
          epoch bigint NOT NULL,
          owner text NOT NULL,
          clean boolean NOT NULL,
          since timestamptz NOT NULL
        )
        """,
        // Every committed change of a job is announced (the event feed, in commit order), and
        // every change that can give a printer work wakes the daemon that owns it.
        """
        CREATE FUNCTION receipt_job_changed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          PERFORM pg_notify('receipt_jobs', NEW.sequence::text);
          IF NEW.state = 'queued' OR (TG_OP = 'UPDATE' AND OLD.state = 'queued' AND NEW.state <> 'printing') THEN
            PERFORM pg_notify('receipt_work', NEW.printer);
          END IF;
          RETURN NULL;
        END $$
        """,
        """
        CREATE TRIGGER job_changed AFTER INSERT OR UPDATE ON job
          FOR EACH ROW EXECUTE FUNCTION receipt_job_changed()
        """,
      ]
    )
  ]

  /// Brings the database up to the newest schema.
  static func migrate(_ sessions: PostgresSessions) throws {
    try sessions.transaction { connection in
      try sessions.run("SELECT pg_advisory_xact_lock(\(migrationLock), 0)", on: connection)
      try sessions.run(
        """
        CREATE TABLE IF NOT EXISTS receipt_migrations (
          version integer PRIMARY KEY, name text NOT NULL, "appliedAt" timestamptz NOT NULL DEFAULT now())
        """, on: connection)
      let applied = Set(
        try sessions.run("SELECT version FROM receipt_migrations", on: connection).map {
          try $0.decode(Int.self)
        })
      for migration in migrations where !applied.contains(migration.version) {
        for statement in migration.sql { try sessions.run(PostgresQuery(unsafeSQL: statement), on: connection) }
        try sessions.run(
          "INSERT INTO receipt_migrations (version, name) VALUES (\(migration.version), \(migration.name))",
          on: connection)
      }
    }
  }
}

extension Job {
  /// A job from a row of ``PostgresSchema/jobColumns``.
  init(postgres row: PostgresRow) throws {
    let cells = row.makeRandomAccess()
    func value<T: PostgresDecodable>(_ index: Int, _ type: T.Type = T.self) throws -> T {
      try cells[index].decode(T.self, context: .default)
    }
    let state: String = try value(8)
    guard let decoded = State(rawValue: state) else { throw StoreUnavailable(reason: "unknown job state '\(state)'") }
    self.init(
      id: try value(1), sequence: try value(0), idempotencyKey: try value(2), printer: try value(3),
      template: try value(4), data: try value(5), locale: try value(6), copies: try value(7), state: decoded,
      attempts: try value(9), crashes: try value(10), error: try value(11), cupsJobID: try value(12),
      printerState: try value(13), createdAt: try value(14), updatedAt: try value(15), notBefore: try value(16),
      orderID: try value(17), route: try value(18), label: try value(19), fallback: try value(20),
      fallbackFor: try value(21), failoverReason: try value(22), reprintOf: try value(23), reprint: try value(24),
      documentSHA256: try value(25), sentAt: try value(26), processID: try value(27), interruptions: try value(28))
  }
}
