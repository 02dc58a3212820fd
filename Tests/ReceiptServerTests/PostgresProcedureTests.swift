import Foundation
import ReceiptKit
import ReceiptTestSupport
import Testing

@testable import ReceiptServer

/// The procedures a write on its own calls (`PostgresProcedures`): named by their definition,
/// installed with the migrations, and left alone when they belong to another daemon's version —
/// during a rolling upgrade the old daemons still call theirs.
@Suite struct PostgresProcedureTests {
  /// A name is the prefix and twelve hex digits of the definition's digest: the same definition,
  /// the same name; another definition (a column added), another name.
  @Test func aProceduresNameFollowsItsDefinition() {
    let one = PostgresProcedure(prefix: "receipt_submit", signatureAndBody: "(text) LANGUAGE sql AS 'SELECT 1'")
    let same = PostgresProcedure(prefix: "receipt_submit", signatureAndBody: "(text) LANGUAGE sql AS 'SELECT 1'")
    let other = PostgresProcedure(prefix: "receipt_submit", signatureAndBody: "(bigint) LANGUAGE sql AS 'SELECT 1'")
    #expect(one.name == same.name)
    #expect(one.name != other.name)
    #expect(one.name.wholeMatch(of: /receipt_submit_[0-9a-f]{12}/) != nil, "\(one.name)")
    #expect(one.definition.hasPrefix("CREATE PROCEDURE \(one.name)(text)"))
    let names = PostgresProcedures.all.map(\.name)
    #expect(Set(names).count == 3, "\(names)")
  }

  /// A daemon starting on a database that another version of it set up installs its own
  /// procedures beside the other's and drops nothing; a second daemon of the same version
  /// installs none again. Each version's submissions are stored by its own procedure.
  @Test func eachVersionCallsItsOwnProceduresAndNoneIsDropped() async throws {
    let cluster = try PostgresCluster.shared()
    let url = try cluster.createDatabase()
    let database = PostgresCluster.databaseName(url)
    let first = try PostgresJobStore(url: PostgresURL(url)).started()
    _ = try await first.counts()
    // An older daemon's submission procedure (its columns differ: another name), still in use.
    let older = "receipt_submit_0123456789ab"
    try cluster.psql(
      "CREATE PROCEDURE \(older)(INOUT note text) LANGUAGE plpgsql AS $$ BEGIN note := 'older'; END $$",
      database: database)
    let second = try PostgresJobStore(url: PostgresURL(url)).started()
    let request = JobRequest(printer: "bar", template: "receipt", data: PostgresStoreTests.order)
    #expect(try await second.submit(request, idempotencyKey: nil).created)
    let installed = try cluster.psql(
      "SELECT string_agg(proname, ' ' ORDER BY proname) FROM pg_proc WHERE prokind = 'p' AND proname LIKE 'receipt_%'",
      database: database)
    let expected = (PostgresProcedures.all.map(\.name) + [older]).sorted().joined(separator: " ")
    #expect(installed == expected)
    #expect(try cluster.psql("CALL \(older)(NULL)", database: database) == "older")
    await first.close()
    await second.close()
  }
}
