import Foundation
import ReceiptKit
import ReceiptTestSupport
import Testing

@testable import ReceiptServer

/// The statements every job goes through are prepared once per connection, as PostgreSQL's own
/// log shows them (`log_min_duration_statement = 0` logs each parse, bind and execute with the
/// statement's name): the work of parsing and planning is not paid per job.
@Suite struct PostgresPreparedStatementTests {
  /// A database of its own with `setting` for every session, and a started store on it.
  func database(setting: String) throws -> (PostgresCluster, name: String, PostgresJobStore) {
    let cluster = try PostgresCluster.shared()
    let url = try cluster.createDatabase()
    let name = PostgresCluster.databaseName(url)
    try cluster.psql("ALTER DATABASE \(name) SET \(setting)")
    return (cluster, name, try PostgresJobStore(url: PostgresURL(url)).started())
  }

  /// Five jobs submitted, claimed and completed: each of the statements they use is parsed once
  /// by each session that runs it and executed once per use, and none of them goes through an
  /// unnamed statement (parsed for every execution). The jobs' 64-bit CUPS job IDs, saved by a
  /// statement whose first execution bound NULL there, are stored whole.
  @Test func aJobsStatementsAreParsedOncePerSession() async throws {
    let (cluster, name, store) = try database(setting: "log_min_duration_statement = 0")
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

    // `2026-12-02 03:40:01.123 UTC [4242] LOG:  duration: 0.051 ms  parse ReceiptServer.SubmitJobCall: CALL …`
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
        if words[2].hasPrefix("WITH inserted") || words[2].hasPrefix("WITH saved") || words[2].hasPrefix("CALL ") {
          unnamedJobWrites += 1
        }
      default: break
      }
    }
    #expect(!parses.isEmpty, "PostgreSQL logged no prepared statement of the store's sessions")
    #expect(parses.values.allSatisfy { $0 == 1 }, "parsed more than once in one session: \(parses)")
    // Each write on its own is a procedure's `CALL` that commits before it is answered.
    #expect(executions["ReceiptServer.SubmitJobCall"] == 5)
    #expect(executions["ReceiptServer.QueueHeadStatement"] == 5)
    // Each job saved three times: claimed, handed over, completed (the claimed copy is kept: no reads).
    #expect(executions["ReceiptServer.SaveJobCall"] == 15)
    // One round trip per write: nothing else runs per job (no statement confirming a commit).
    #expect(executions.values.reduce(0, +) == 25, "statements per five jobs: \(executions)")
    #expect(unnamedJobWrites == 0, "job rows written by statements parsed for each execution")
  }

  /// A statement whose preparation failed does not stay failed on its connection. postgres-nio
  /// keeps a failed preparation for the connection's life (every later use answers the same
  /// error), so the store closes a connection on such an error and the pool opens another. Here
  /// the preparation of the read a change of a job starts with fails on `lock_timeout` while
  /// another session holds the job table (a submission's `CALL` is prepared without the table:
  /// its own execution fails); once it lets go, every change and submission is stored.
  @Test func aFailedPreparationDoesNotStayWithItsConnection() async throws {
    // Two seconds, not less: every commit that notifies waits for PostgreSQL's one lock on the
    // notification queue (cluster-wide), and under a full test run's load the first submission
    // below once waited longer than 300 ms for it ("did not commit the write: … lock timeout").
    let (cluster, name, store) = try database(setting: "lock_timeout = '2s'")
    let request = JobRequest(printer: "bar", template: "receipt", data: PostgresStoreTests.order)
    // A pooled connection, open, with the submission prepared on it but not the read.
    let job = try await store.submit(request, idempotencyKey: nil).job
    // Another session takes the job table and keeps it until this test cancels it (or for 60 s):
    // however slow the machine, the submission below runs while the table is locked.
    let lockSQL = "BEGIN; LOCK TABLE job IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(60); COMMIT;"
    let lock = Task { try? await offPool { try cluster.psql(lockSQL, database: name) } }
    let holder =
      "FROM pg_locks l JOIN pg_class c ON c.oid = l.relation "
      + "WHERE c.relname = 'job' AND l.mode = 'AccessExclusiveLock' AND l.granted"
    #expect(
      try await eventually(seconds: 30, poll: 0.05) {
        try await offPool { try cluster.psql("SELECT count(*) \(holder)", database: name) } == "1"
      }, "the lock is held")
    await #expect(throws: (any Error).self, "the table is locked: the read's preparation times out") {
      try await store.update(job.id) { job in
        job.label = "changed"
        return true
      }
    }
    await #expect(throws: StoreUnavailable.self, "the table is locked: the submission's execution times out") {
      try await store.submit(request, idempotencyKey: nil)
    }
    _ = try await offPool { try cluster.psql("SELECT pg_cancel_backend(l.pid) \(holder)", database: name) }
    _ = await lock.value
    for round in 0..<5 {
      let changed = try await store.update(job.id) { job in
        job.label = "changed \(round)"
        return true
      }
      #expect(changed?.changed == true)
      #expect(try await store.submit(request, idempotencyKey: nil).created)
    }
    #expect(try await store.job(job.id)?.label == "changed 4")
    #expect(try await store.counts().count("bar", .queued) == 6)
    await store.close()
  }
}
