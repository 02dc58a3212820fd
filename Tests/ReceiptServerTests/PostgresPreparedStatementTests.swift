import Foundation
import ReceiptKit
import ReceiptTestSupport
import Testing

@testable import ReceiptServer

/// The statements every job goes through are prepared once per connection, as PostgreSQL's own
/// log shows them (`log_min_duration_statement = 0` logs each parse, bind and execute with the
/// statement's name): the work of parsing and planning is not paid per job.
@Suite struct PostgresPreparedStatementTests {
  /// Five jobs submitted, claimed and completed: each of the statements they use is parsed once
  /// by each session that runs it and executed once per use, and none of them goes through an
  /// unnamed statement (parsed for every execution). The jobs' 64-bit CUPS job IDs, saved by a
  /// statement whose first execution bound NULL there, are stored whole.
  @Test func aJobsStatementsAreParsedOncePerSession() async throws {
    let cluster = try PostgresCluster.shared()
    let url = try cluster.createDatabase()
    let name = PostgresCluster.databaseName(url)
    try cluster.psql("ALTER DATABASE \(name) SET log_min_duration_statement = 0")
    let store = try PostgresJobStore(url: PostgresURL(url)).started()
    #expect(try await store.own(printer: "bar", maxCrashes: 3) == [])
    let cupsJobIDs = (1...5).map { 5_000_000_000 + $0 }
    for cupsJobID in cupsJobIDs {
      let job = try await store.submit(
        JobRequest(printer: "bar", template: "receipt", data: PostgresStoreTests.order), idempotencyKey: nil
      ).job
      let claimed = try #require(try await store.claimNext(printer: "bar"))
      #expect(claimed.id == job.id)
      try await store.markHandedOver(job.id)
      try await store.complete(job.id, cupsJobID: cupsJobID)
      #expect(try await store.job(job.id)?.cupsJobID == cupsJobID)
    }
    let sessions = Set(
      try cluster.psql("SELECT pid FROM pg_stat_activity WHERE datname = '\(name)'").split(separator: "\n").map(
        String.init))
    await store.close()

    // `2026-12-02 03:40:01.123 UTC [4242] LOG:  duration: 0.051 ms  parse ReceiptServer.InsertJobStatement: WITH …`
    let log = try String(contentsOfFile: cluster.directory.path + "/log", encoding: .utf8)
    var parses: [String: Int] = [:]
    var executions: [String: Int] = [:]
    var unnamedJobWrites = 0
    for line in log.split(separator: "\n") {
      guard let open = line.firstIndex(of: "["), let close = line[open...].firstIndex(of: "]"),
        sessions.contains(String(line[line.index(after: open)..<close])), let duration = line.range(of: " ms  ")
      else { continue }
      let words = line[duration.upperBound...].split(separator: " ", maxSplits: 2)
      guard words.count == 3 else { continue }
      let statement = words[1].hasSuffix(":") ? String(words[1].dropLast()) : String(words[1])
      switch words[0] {
      case "parse" where statement.hasPrefix("ReceiptServer."):
        parses["\(statement) \(line[open...close])", default: 0] += 1
      case "execute" where statement.hasPrefix("ReceiptServer."):
        executions[statement, default: 0] += 1
      case "parse" where statement == "<unnamed>":
        // A submission or a save as an unnamed statement (the migrations' own updates are not).
        if words[2].hasPrefix("WITH inserted") || words[2].hasPrefix("WITH saved") { unnamedJobWrites += 1 }
      default: break
      }
    }
    #expect(!parses.isEmpty, "PostgreSQL logged no prepared statement of the store's sessions")
    #expect(parses.values.allSatisfy { $0 == 1 }, "parsed more than once in one session: \(parses)")
    #expect(executions["ReceiptServer.InsertJobStatement"] == 5)
    #expect(executions["ReceiptServer.QueueHeadStatement"] == 5)
    // Each job saved twice more: claimed, handed over, completed (the claimed copy is kept: no reads).
    #expect(executions["ReceiptServer.SaveJobStatement"] == 15)
    #expect(unnamedJobWrites == 0, "job rows written by statements parsed for each execution")
  }
}
