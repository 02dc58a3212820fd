import GRDB
import ReceiptKit

/// The SQLite store's schema, as GRDB migrations (the PostgreSQL store's are in
/// ``PostgresSchema``). Columns are named as `Job`'s and `Order`'s properties.
extension SQLiteJobStore {
  static var migrator: DatabaseMigrator {
    var migrator = DatabaseMigrator()
    migrator.registerMigration("v1") { db in
      try db.create(table: "job") { t in
        t.column("sequence", .integer).primaryKey(autoincrement: true)
        t.column("id", .text).notNull().unique()
        t.column("idempotencyKey", .text).unique()
        t.column("printer", .text).notNull().indexed()
        t.column("template", .text).notNull()
        t.column("data", .blob).notNull()
        t.column("locale", .text)
        t.column("copies", .integer).notNull()
        t.column("state", .text).notNull().indexed()
        t.column("attempts", .integer).notNull()
        t.column("error", .text)
        t.column("cupsJobID", .integer)
        t.column("createdAt", .datetime).notNull()
        t.column("updatedAt", .datetime).notNull()
        t.column("notBefore", .datetime).notNull()
      }
    }
    migrator.registerMigration("v2: printer state") { db in
      try db.alter(table: "job") { t in t.add(column: "printerState", .text) }
    }
    migrator.registerMigration("v3: crashes, daemon state") { db in
      try db.alter(table: "job") { t in t.add(column: "crashes", .integer).notNull().defaults(to: 0) }
      try db.create(table: "daemon") { t in
        t.primaryKey("key", .text)
        t.column("value", .text).notNull()
      }
    }
    migrator.registerMigration("v4: orders, routes, failover, reprints, archive") { db in
      try db.create(table: "orders") { t in
        t.primaryKey("id", .text)
        t.column("idempotencyKey", .text).unique()
        t.column("data", .blob).notNull()
        t.column("locale", .text)
        t.column("routes", .text)
        t.column("createdAt", .datetime).notNull()
      }
      try db.alter(table: "job") { t in
        t.add(column: "orderID", .text).indexed()
        t.add(column: "route", .text)
        t.add(column: "label", .text)
        t.add(column: "fallback", .text)
        t.add(column: "fallbackFor", .text)
        t.add(column: "failoverReason", .text)
        t.add(column: "reprintOf", .text).indexed()
        t.add(column: "reprint", .integer).notNull().defaults(to: 0)
        t.add(column: "documentSHA256", .text)
      }
    }
    migrator.registerMigration("v5: confirmed prints") { db in
      try db.alter(table: "job") { t in
        t.add(column: "sentAt", .datetime)
        t.add(column: "processID", .text)
        t.add(column: "interruptions", .integer).notNull().defaults(to: 0)
      }
    }
    migrator.registerMigration("v6: stage") { db in
      try db.alter(table: "job") { t in t.add(column: "stage", .text) }
    }
    migrator.registerMigration("v7: document jobs (IPP)") { db in
      try db.alter(table: "job") { t in
        t.add(column: "documentFormat", .text)
        t.add(column: "jobName", .text)
        t.add(column: "user", .text)
        t.add(column: "printOptions", .text)
      }
    }
    migrator.registerMigration("v8: document formats as the queue knows them") { db in
      // Create-Job once kept `application/octet-stream` (sniffed when the document came): not a
      // format of its own, so no format.
      try db.execute(
        sql: "UPDATE job SET documentFormat = NULL WHERE documentFormat NOT IN (\(SQLiteJobStore.formats))")
    }
    migrator.registerMigration("v9: e-receipts") { db in
      try db.alter(table: "job") { t in t.add(column: JobColumn.recipient.stringValue, .text) }
    }
    return migrator
  }

  /// The document formats a job may have, as an SQL list.
  static var formats: String { DocumentFormat.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ") }
}

extension CodingKey {
  /// The column of a declared field (``JobColumn``, `Order.CodingKeys`) in GRDB's query
  /// interface: the one way the SQLite store names a column.
  var column: GRDB.Column { GRDB.Column(self) }
}
