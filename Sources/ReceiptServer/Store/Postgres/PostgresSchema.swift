import Foundation
import Logging
import PostgresNIO
import ReceiptKit

/// The PostgreSQL store's schema, as numbered migrations (the SQLite store's are GRDB
/// migrations). Each runs once, in one transaction, recorded in `receipt_migrations`; daemons
/// starting at the same time take turns through a transaction-level advisory lock.
enum PostgresSchema {
  /// Advisory-lock namespaces (the first key of the two-key form): migrations, printer
  /// ownership (session locks), submissions to one printer (transaction locks).
  static let migrationLock: Int32 = 0x7263_7000
  static let ownerLock: Int32 = 0x7263_7001
  static let submitLock: Int32 = 0x7263_7002

  /// The job's columns (``JobColumn``, quoted), as every query of jobs selects them: rows are
  /// read by name (``PostgresRowDecoder``), never by position.
  static let jobColumns = JobColumn.allCases.map(\.quoted).joined(separator: ", ")

  /// ``jobColumns``, the claim and the row's version (`xmin`, as text): what a change reads
  /// (``VersionedJob``) to save by compare-and-set.
  static let versionedColumns = jobColumns + #", claim, xmin::text AS "rowVersion""#

  /// ``Job/openStates`` as an SQL list: the states of the jobs in a printer's queue.
  static let openStates = Job.openStates.map { "'\($0.rawValue)'" }.joined(separator: ", ")

  /// ``jobColumns`` with an empty `data` (lists never load documents).
  static let listColumns = JobColumn.allCases.map { $0 == .data ? #"''::bytea AS "data""# : $0.quoted }
    .joined(separator: ", ")

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
    (
      5, "the change feed's payload from the row itself (every column but the document); work wake-ups by the store",
      [
        // `to_jsonb(NEW)` carries every column, also those added later: a new column needs no
        // new trigger. Timestamps are written in UTC (the function's own time zone) for the
        // daemons' decoder (`Job.fromNotification`). Work (`receipt_work`) is no longer the
        // trigger's business: the store sends it as the queue's rule decides
        // (`Job.printersToWake`).
        """
        CREATE OR REPLACE FUNCTION receipt_job_changed() RETURNS trigger LANGUAGE plpgsql SET timezone TO 'UTC' AS $$
        DECLARE
          payload text := NEW.sequence::text || ' '
            || ((to_jsonb(NEW) - 'claim' - 'data') || jsonb_build_object('data', ''))::text;
        BEGIN
          IF octet_length(payload) > 7900 THEN payload := NEW.sequence::text; END IF;
          PERFORM pg_notify('receipt_jobs', payload);
          RETURN NULL;
        END $$
        """
      ]
    ),
    (
      6, "document formats as the queue knows them (Create-Job once kept application/octet-stream)",
      [
        #"UPDATE job SET "documentFormat" = NULL WHERE "documentFormat" NOT IN ("#
          + DocumentFormat.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ") + ")"
      ]
    ),
    (
      7, "the change feed's payload without encoding the document first",
      [
        // `to_jsonb(NEW)` wrote the whole document as hex before `- 'data'` dropped it: the row is
        // copied with an empty document instead (the payload is the same).
        """
        CREATE OR REPLACE FUNCTION receipt_job_changed() RETURNS trigger LANGUAGE plpgsql SET timezone TO 'UTC' AS $$
        DECLARE
          changed job := NEW;
          payload text;
        BEGIN
          changed.data := ''::bytea;
          payload := NEW.sequence::text || ' '
            || ((to_jsonb(changed) - 'claim' - 'data') || jsonb_build_object('data', ''))::text;
          IF octet_length(payload) > 7900 THEN payload := NEW.sequence::text; END IF;
          PERFORM pg_notify('receipt_jobs', payload);
          RETURN NULL;
        END $$
        """
      ]
    ),
    (8, "e-receipts: a job's address", [#"ALTER TABLE job ADD COLUMN "recipient" text"#]),
    (
      9, "a printer's queue head for a claim in one statement",
      [
        // The printer's submission lock taken exclusively, then its head read with a snapshot of
        // its own (a volatile function's statement): every job with a lower sequence is committed
        // by then. The lock ends with the caller's statement; the claim is then saved by
        // compare-and-set on the row's version (`xmin`), returned beside it. The open states are
        // written in as `Job.openStates` is today: a state added to the queue needs a migration
        // that replaces the function (as one that adds a column needs none: `head job` is the row).
        """
        CREATE FUNCTION receipt_queue_head(queue text) RETURNS TABLE (head job, "rowVersion" text)
        LANGUAGE plpgsql VOLATILE AS $$
        BEGIN
          PERFORM pg_advisory_xact_lock(\(submitLock), hashtext(queue));
          RETURN QUERY SELECT j, j.xmin::text FROM job j
            WHERE j.printer = queue AND j.state IN (\(openStates)) ORDER BY j.sequence LIMIT 1;
        END $$
        """
      ]
    ),
  ]

  /// Brings the database up to the newest schema and installs this daemon's procedures
  /// (``PostgresProcedures``), in one transaction.
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
        try await PostgresProcedures.install(on: connection, logger: logger)
      }
    }
  }
}

extension Job {
  /// A job from a row that has its columns (``PostgresSchema/jobColumns``), read by name.
  init(postgres row: PostgresRow) throws {
    try self.init(from: PostgresRowDecoder(row))
  }

  /// A job as a `receipt_jobs` notification carries it: the row as JSON (without its document),
  /// timestamps in UTC as PostgreSQL writes them (`2026-11-28T23:00:00.123456+00:00`).
  static func fromNotification(_ json: Data) throws -> Job {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .custom { decoder in
      let text = try decoder.singleValueContainer().decode(String.self)
      guard let date = PostgresTimestamp.parse(text) else {
        throw DecodingError.dataCorrupted(
          .init(codingPath: decoder.codingPath, debugDescription: "not a timestamp: \(text)"))
      }
      return date
    }
    return try decoder.decode(Job.self, from: json)
  }
}

extension JobColumn {
  /// The column's name as PostgreSQL statements write it (quoted: the names are camel case).
  var quoted: String { "\"\(rawValue)\"" }

  /// The type a statement gives the column's parameter where PostgreSQL cannot infer it (an
  /// `INSERT … SELECT`); the table's own types may be narrower (`integer`), assigned from these.
  var postgresType: String {
    switch kind {
    case .integer: "bigint"
    case .text: "text"
    case .blob: "bytea"
    case .date: "timestamptz"
    }
  }
}

/// PostgreSQL's JSON form of a `timestamptz` (ISO 8601 with up to six fractional digits and an
/// offset).
enum PostgresTimestamp {
  static func parse(_ text: String) -> Date? {
    // yyyy-MM-ddTHH:mm:ss[.ffffff](+|-)HH:MM, or Z
    let scalars = Array(text.utf8)
    guard scalars.count >= 20 else { return nil }
    func number(_ from: Int, _ count: Int) -> Int? {
      guard from + count <= scalars.count else { return nil }
      var value = 0
      for byte in scalars[from..<from + count] {
        guard (48...57).contains(byte) else { return nil }
        value = value * 10 + Int(byte - 48)
      }
      return value
    }
    guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2), let hour = number(11, 2),
      let minute = number(14, 2), let second = number(17, 2)
    else { return nil }
    var index = 19
    var fraction = 0.0
    if index < scalars.count, scalars[index] == UInt8(ascii: ".") {
      index += 1
      var scale = 0.1
      while index < scalars.count, (48...57).contains(scalars[index]) {
        fraction += Double(scalars[index] - 48) * scale
        scale /= 10
        index += 1
      }
    }
    var offset = 0
    if index < scalars.count, scalars[index] == UInt8(ascii: "+") || scalars[index] == UInt8(ascii: "-") {
      guard let hours = number(index + 1, 2) else { return nil }
      let minutes = index + 3 < scalars.count && scalars[index + 3] == UInt8(ascii: ":") ? number(index + 4, 2) ?? 0 : 0
      offset = (hours * 3600 + minutes * 60) * (scalars[index] == UInt8(ascii: "-") ? -1 : 1)
    }
    var components = DateComponents()
    (components.year, components.month, components.day) = (year, month, day)
    (components.hour, components.minute, components.second) = (hour, minute, second)
    components.timeZone = TimeZone(secondsFromGMT: 0)
    guard let whole = Calendar(identifier: .gregorian).date(from: components) else { return nil }
    return whole.addingTimeInterval(fraction - Double(offset))
  }
}
