import Foundation
import ReceiptKit
import ReceiptTestSupport
import Testing

@testable import ReceiptServer

/// A write PostgreSQL did not commit is never taken as done. postgres-nio ends a statement at its
/// `CommandComplete`; PostgreSQL commits a statement that runs on its own only at the `Sync`
/// after it, and answers that commit with `ReadyForQuery`. A commit that fails in between — here a
/// deferred constraint trigger refuses it; in CI (2026-12-02) the server's immediate shutdown,
/// whose backends flush the buffered `CommandComplete` with their farewell — was answered as
/// stored: a 202 for a job no table held.
@Suite struct PostgresCommitTests {
  /// A started store on a database of its own where a deferred constraint trigger on `job`
  /// (`event`: `INSERT` or `UPDATE`) refuses, at commit, every row `condition` holds for.
  func refusing(_ event: String, when condition: String) async throws -> (
    PostgresCluster, database: String, PostgresJobStore
  ) {
    let cluster = try PostgresCluster.shared()
    let url = try PostgresURL(cluster.createDatabase())
    // A bound longer than any answer here: a wait that only the bound would end shows.
    let store = try PostgresJobStore(url: url, timeout: .seconds(60)).started()
    // Migrated: the table exists.
    _ = try await store.counts()
    try cluster.psql(
      """
      CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'refused at commit'; END $$;
      CREATE CONSTRAINT TRIGGER refuse AFTER \(event) ON job DEFERRABLE INITIALLY DEFERRED
      FOR EACH ROW WHEN (\(condition)) EXECUTE FUNCTION refuse();
      """, database: url.database)
    return (cluster, url.database, store)
  }

  func request(_ printer: String) -> JobRequest {
    JobRequest(printer: printer, template: "receipt", data: PostgresStoreTests.order)
  }

  /// A submission whose commit fails throws (the daemon answers 503), and nothing is stored;
  /// the next submission is stored on a fresh session.
  @Test func aSubmissionWhoseCommitFailsIsNotTakenAsStored() async throws {
    let (cluster, database, store) = try await refusing("INSERT", when: "NEW.printer = 'refused'")
    await #expect(throws: StoreUnavailable.self, "a job its commit refused was answered as stored") {
      try await store.accept(self.request("refused"), idempotencyKey: "till-1")
    }
    #expect(try cluster.psql("SELECT count(*) FROM job", database: database) == "0")
    let job = try await store.accept(request("bar"), idempotencyKey: "till-2").job
    #expect(try cluster.psql("SELECT printer FROM job", database: database) == "bar")
    #expect(try await store.job(job.id)?.state == .queued)
    await store.close()
  }

  /// A claim whose commit fails throws: the worker never prints a job the database still has
  /// queued (another daemon would print it too), and the daemon knows at once that it no longer
  /// holds the printer (the failed commit ended the session that held it; asking a closed
  /// session, postgres-nio never answered, and the printer stayed "owned" until the bound). A
  /// change of another job by its ID likewise.
  @Test func aClaimOrAChangeWhoseCommitFailsIsNotTakenAsSaved() async throws {
    let (cluster, database, store) = try await refusing(
      "UPDATE", when: "NEW.state IN ('printing', 'canceled') AND NEW.template = 'receipt'")
    #expect(try await store.own(printer: "bar", maxCrashes: 3) == [])
    _ = try await store.accept(request("bar"), idempotencyKey: nil)
    let second = try await store.accept(request("bar"), idempotencyKey: nil).job
    await #expect(throws: StoreUnavailable.self, "a claim its commit refused was answered as claimed") {
      try await store.claimNext(printer: "bar")
    }
    let asked = ContinuousClock.now
    #expect(await store.owns(printer: "bar") == false)
    #expect(ContinuousClock.now - asked < .seconds(30), "the closed session's answer waited for the bound")
    await #expect(throws: StoreUnavailable.self, "a cancel its commit refused was answered as saved") {
      try await store.update(second.id) { job in
        job.state = .canceled
        return true
      }
    }
    #expect(try cluster.psql("SELECT string_agg(state, ' ') FROM job", database: database) == "queued queued")
    await store.close()
  }
}
