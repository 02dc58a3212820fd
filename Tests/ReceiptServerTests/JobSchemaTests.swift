import Foundation
import GRDB
import PostgresNIO
import Testing

@testable import ReceiptServer

/// The job's columns are declared once (``JobColumn``): every stored property of ``Job`` is a
/// declared column, and each store's live table — after all its migrations — has exactly the
/// declared columns, of the declared kind and nullability. A column added to one place and not
/// the others fails here.
@Suite struct JobSchemaTests {
  @Test func everyStoredPropertyOfAJobIsADeclaredColumn() {
    let job = Job(
      JobRequest(printer: "p", template: "t", data: Data()), id: "x", sequence: 1, idempotencyKey: nil, orderID: nil,
      now: Date())
    let properties = Mirror(reflecting: job).children.compactMap(\.label)
    #expect(Set(properties) == Set(JobColumn.allCases.map(\.rawValue)), "Job's stored properties are the columns")
    #expect(properties.count == JobColumn.allCases.count)
  }

  /// A store's table as it is: column name → (kind, nullable).
  typealias Table = [String: (kind: JobColumn.Kind, nullable: Bool)]

  @Test(arguments: StoreKind.allCases) func eachStoresTableIsTheDeclaration(store: StoreKind) async throws {
    let fixture = try ServerFixture(store: store)
    try await fixture.running {
      var table: Table = [:]
      switch fixture.server.store {
      case let sqlite as SQLiteJobStore:
        let rows = try await sqlite.pool.read { try Row.fetchAll($0, sql: "PRAGMA table_info(job)") }
        for row in rows {
          let type: String = row["type"]
          let kind: JobColumn.Kind? =
            switch type {
            case "INTEGER": .integer
            case "TEXT": .text
            case "BLOB": .blob
            case "DATETIME": .date
            default: nil
            }
          let name: String = row["name"]
          let notNull: Bool = row["notnull"]
          let primaryKey: Bool = row["pk"]
          table[name] = (try #require(kind, "\(name): \(type)"), !notNull && !primaryKey)
        }
      case let postgres as PostgresJobStore:
        let rows = try await postgres.rows(
          "SELECT column_name, data_type, is_nullable FROM information_schema.columns WHERE table_name = 'job'")
        for row in rows {
          let (name, type, nullable) = try row.decode((String, String, String).self)
          let kind: JobColumn.Kind? =
            switch type {
            case "bigint", "integer": .integer
            case "text": .text
            case "bytea": .blob
            case "timestamp with time zone": .date
            default: nil
            }
          table[name] = (try #require(kind, "\(name): \(type)"), nullable == "YES")
        }
        // The store's own column: which daemon's claim a printing job is under (fencing).
        #expect(table.removeValue(forKey: "claim")?.nullable == true)
      default:
        Issue.record("a store this test does not know")
      }
      #expect(Set(table.keys) == Set(JobColumn.allCases.map(\.rawValue)), "\(store): the columns")
      for column in JobColumn.allCases {
        guard let live = table[column.rawValue] else { continue }
        #expect(live.kind == column.kind, "\(store) \(column): \(live.kind), declared \(column.kind)")
        #expect(live.nullable == column.isNullable, "\(store) \(column): nullable \(live.nullable)")
      }
    }
  }

  /// PostgreSQL's JSON timestamps (the change feed) read back to the microsecond, in any offset.
  @Test func postgresTimestampsParse() throws {
    let date = try #require(PostgresTimestamp.parse("2026-11-28T23:00:01.123456+00:00"))
    #expect(abs(date.timeIntervalSince1970 - 1_795_906_801.123456) < 1e-6)
    #expect(PostgresTimestamp.parse("2026-11-28T23:00:01+01:00")?.timeIntervalSince1970 == 1_795_903_201)
    #expect(PostgresTimestamp.parse("2026-11-28T23:00:01Z")?.timeIntervalSince1970 == 1_795_906_801)
    #expect(PostgresTimestamp.parse("not a date") == nil)
  }
}
