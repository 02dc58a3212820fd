import Foundation
import Logging
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

  /// Where `claim` is when a query selects it after ``jobColumns``.
  static let claimColumn = 34
  /// The job's columns, in the order ``Job/init(postgres:)`` reads them.
  static let jobColumns = """
    sequence, id, "idempotencyKey", printer, template, data, locale, copies, state, attempts, crashes, error, \
    "cupsJobID", "printerState", "createdAt", "updatedAt", "notBefore", "orderID", route, label, fallback, \
    "fallbackFor", "failoverReason", "reprintOf", reprint, "documentSHA256", "sentAt", "processID", interruptions, stage, \
    "documentFormat", "jobName", "user", "printOptions"
    """

  /// ``jobColumns`` with an empty `data` (lists never load documents), in the same positions.
  static let listColumns = jobColumns.replacingOccurrences(of: "template, data,", with: "template, ''::bytea,")

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
        // Every committed change of a job is announced with the job as it was changed (all but
        // its order data; the sequence alone if that is too long for a notification), so the
        // event feed shows every state in commit order; every change that can give a printer
        // work wakes the daemon that owns it.
        """
        CREATE FUNCTION receipt_job_changed() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
          payload text := NEW.sequence::text || ' ' || jsonb_build_object(
            'id', NEW.id, 'sequence', NEW.sequence, 'idempotencyKey', NEW."idempotencyKey", 'printer', NEW.printer,
            'template', NEW.template, 'locale', NEW.locale, 'copies', NEW.copies, 'state', NEW.state,
            'attempts', NEW.attempts, 'crashes', NEW.crashes, 'error', NEW.error, 'cupsJobID', NEW."cupsJobID",
            'printerState', NEW."printerState", 'createdAt', extract(epoch FROM NEW."createdAt"),
            'updatedAt', extract(epoch FROM NEW."updatedAt"), 'notBefore', extract(epoch FROM NEW."notBefore"),
            'orderID', NEW."orderID", 'route', NEW.route, 'label', NEW.label, 'fallback', NEW.fallback,
            'fallbackFor', NEW."fallbackFor", 'failoverReason', NEW."failoverReason", 'reprintOf', NEW."reprintOf",
            'reprint', NEW.reprint, 'documentSHA256', NEW."documentSHA256",
            'sentAt', extract(epoch FROM NEW."sentAt"), 'processID', NEW."processID",
            'interruptions', NEW.interruptions)::text;
        BEGIN
          IF octet_length(payload) > 7900 THEN payload := NEW.sequence::text; END IF;
          PERFORM pg_notify('receipt_jobs', payload);
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
    ),
    (
      2, "stage of a printing job (crash accounting), in notifications too",
      [
        "ALTER TABLE job ADD COLUMN stage text",
        """
        CREATE OR REPLACE FUNCTION receipt_job_changed() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
          payload text := NEW.sequence::text || ' ' || jsonb_build_object(
            'id', NEW.id, 'sequence', NEW.sequence, 'idempotencyKey', NEW."idempotencyKey", 'printer', NEW.printer,
            'template', NEW.template, 'locale', NEW.locale, 'copies', NEW.copies, 'state', NEW.state,
            'attempts', NEW.attempts, 'crashes', NEW.crashes, 'error', NEW.error, 'cupsJobID', NEW."cupsJobID",
            'printerState', NEW."printerState", 'createdAt', extract(epoch FROM NEW."createdAt"),
            'updatedAt', extract(epoch FROM NEW."updatedAt"), 'notBefore', extract(epoch FROM NEW."notBefore"),
            'orderID', NEW."orderID", 'route', NEW.route, 'label', NEW.label, 'fallback', NEW.fallback,
            'fallbackFor', NEW."fallbackFor", 'failoverReason', NEW."failoverReason", 'reprintOf', NEW."reprintOf",
            'reprint', NEW.reprint, 'documentSHA256', NEW."documentSHA256",
            'sentAt', extract(epoch FROM NEW."sentAt"), 'processID', NEW."processID",
            'interruptions', NEW.interruptions, 'stage', NEW.stage)::text;
        BEGIN
          IF octet_length(payload) > 7900 THEN payload := NEW.sequence::text; END IF;
          PERFORM pg_notify('receipt_jobs', payload);
          IF NEW.state = 'queued' OR (TG_OP = 'UPDATE' AND OLD.state = 'queued' AND NEW.state <> 'printing') THEN
            PERFORM pg_notify('receipt_work', NEW.printer);
          END IF;
          RETURN NULL;
        END $$
        """,
      ]
    ),
    (
      3, "a table for probe writes (readiness after a failed write)",
      ["CREATE TABLE receipt_probe (instance text PRIMARY KEY, at timestamptz NOT NULL)"]
    ),
    (
      4, "document jobs (IPP): format, name, user, options; held jobs; in notifications too",
      [
        #"ALTER TABLE job ADD COLUMN "documentFormat" text, ADD COLUMN "jobName" text, ADD COLUMN "user" text, ADD COLUMN "printOptions" text"#,
        """
        CREATE OR REPLACE FUNCTION receipt_job_changed() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
          payload text := NEW.sequence::text || ' ' || jsonb_build_object(
            'id', NEW.id, 'sequence', NEW.sequence, 'idempotencyKey', NEW."idempotencyKey", 'printer', NEW.printer,
            'template', NEW.template, 'locale', NEW.locale, 'copies', NEW.copies, 'state', NEW.state,
            'attempts', NEW.attempts, 'crashes', NEW.crashes, 'error', NEW.error, 'cupsJobID', NEW."cupsJobID",
            'printerState', NEW."printerState", 'createdAt', extract(epoch FROM NEW."createdAt"),
            'updatedAt', extract(epoch FROM NEW."updatedAt"), 'notBefore', extract(epoch FROM NEW."notBefore"),
            'orderID', NEW."orderID", 'route', NEW.route, 'label', NEW.label, 'fallback', NEW.fallback,
            'fallbackFor', NEW."fallbackFor", 'failoverReason', NEW."failoverReason", 'reprintOf', NEW."reprintOf",
            'reprint', NEW.reprint, 'documentSHA256', NEW."documentSHA256",
            'sentAt', extract(epoch FROM NEW."sentAt"), 'processID', NEW."processID",
            'interruptions', NEW.interruptions, 'stage', NEW.stage, 'documentFormat', NEW."documentFormat",
            'jobName', NEW."jobName", 'user', NEW."user", 'printOptions', NEW."printOptions")::text;
        BEGIN
          IF octet_length(payload) > 7900 THEN payload := NEW.sequence::text; END IF;
          PERFORM pg_notify('receipt_jobs', payload);
          IF NEW.state = 'queued' OR (TG_OP = 'UPDATE' AND OLD.state = 'queued' AND NEW.state <> 'printing') THEN
            PERFORM pg_notify('receipt_work', NEW.printer);
          END IF;
          RETURN NULL;
        END $$
        """,
      ]
    ),
  ]

  /// Brings the database up to the newest schema, in one transaction.
  static func migrate(_ client: PostgresClient, logger: Logger) async throws {
    try await client.withConnection { connection in
      try await PostgresJobStore.transaction(on: connection, logger) { connection in
        try await connection.query("SELECT pg_advisory_xact_lock(\(migrationLock), 0)", logger: logger)
        try await connection.query(
          """
          CREATE TABLE IF NOT EXISTS receipt_migrations (
            version integer PRIMARY KEY, name text NOT NULL, "appliedAt" timestamptz NOT NULL DEFAULT now())
          """, logger: logger)
        var applied = Set<Int>()
        for row in try await connection.query("SELECT version FROM receipt_migrations", logger: logger).collect() {
          applied.insert(try row.decode(Int.self))
        }
        for migration in migrations where !applied.contains(migration.version) {
          for statement in migration.sql {
            try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
          }
          try await connection.query(
            "INSERT INTO receipt_migrations (version, name) VALUES (\(migration.version), \(migration.name))",
            logger: logger)
        }
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
      documentSHA256: try value(25), sentAt: try value(26), processID: try value(27), interruptions: try value(28),
      stage: try value(29, String?.self).flatMap(Stage.init(rawValue:)), documentFormat: try value(30),
      jobName: try value(31), user: try value(32), printOptions: try value(33))
  }
}

/// A job as a `receipt_jobs` notification carries it (dates as seconds since 1970, no order data).
struct NotifiedJob: Decodable {
  var id: String
  var sequence: Int64
  var idempotencyKey: String?
  var printer: String
  var template: String
  var locale: String?
  var copies: Int
  var state: Job.State
  var attempts: Int
  var crashes: Int
  var error: String?
  var cupsJobID: Int?
  var printerState: String?
  var createdAt: Double
  var updatedAt: Double
  var notBefore: Double
  var orderID: String?
  var route: String?
  var label: String?
  var fallback: String?
  var fallbackFor: String?
  var failoverReason: String?
  var reprintOf: String?
  var reprint: Int
  var documentSHA256: String?
  var sentAt: Double?
  var processID: String?
  var interruptions: Int
  var stage: Job.Stage?
  var documentFormat: String?
  var jobName: String?
  var user: String?
  var printOptions: String?

  /// The job (its order data left out: events do not show it).
  var job: Job {
    Job(
      id: id, sequence: sequence, idempotencyKey: idempotencyKey, printer: printer, template: template, data: Data(),
      locale: locale, copies: copies, state: state, attempts: attempts, crashes: crashes, error: error,
      cupsJobID: cupsJobID, printerState: printerState, createdAt: Date(timeIntervalSince1970: createdAt),
      updatedAt: Date(timeIntervalSince1970: updatedAt), notBefore: Date(timeIntervalSince1970: notBefore),
      orderID: orderID, route: route, label: label, fallback: fallback, fallbackFor: fallbackFor,
      failoverReason: failoverReason, reprintOf: reprintOf, reprint: reprint, documentSHA256: documentSHA256,
      sentAt: sentAt.map { Date(timeIntervalSince1970: $0) }, processID: processID, interruptions: interruptions,
      stage: stage, documentFormat: documentFormat, jobName: jobName, user: user, printOptions: printOptions)
  }
}
