import Foundation
import ReceiptKit
@_spi(Internals) import ReceiptModel
import ReceiptTestSupport
import Testing

@testable import ReceiptServer

/// The PostgreSQL store's changes without transactions: saved by compare-and-set on the row's
/// version, claims under the printer's lock in one function. What must hold however the daemons'
/// statements interleave: no change is lost, a kept copy is never written over a newer row, and
/// a claim never passes a job with a lower sequence that is still being submitted.
@Suite struct PostgresCompareAndSetTests {
  func request(_ printer: String = "bar") -> JobRequest {
    JobRequest(printer: printer, template: "receipt", data: PostgresStoreTests.order)
  }

  /// Three daemons change one job 60 times at once, each change adding one to a counter: every
  /// change is in the row (a save over a row changed meanwhile would lose some).
  @Test func concurrentChangesFromThreeDaemonsAreNeverLost() async throws {
    let url = try PostgresURL(PostgresCluster.shared().createDatabase())
    let stores = try (0..<3).map { _ in try PostgresJobStore(url: url).started() }
    let job = try await stores[0].submit(request(), idempotencyKey: nil).job
    try await withThrowingTaskGroup(of: Void.self) { group in
      for round in 0..<20 {
        for store in stores {
          group.addTask {
            let result = try await store.update(job.id) {
              $0.interruptions += 1
              $0.error = "round \(round)"
              return true
            }
            #expect(result?.changed == true)
          }
        }
      }
      try await group.waitForAll()
    }
    let stored = try #require(try await stores[1].job(job.id))
    #expect(stored.interruptions == 60)
    for store in stores { await store.close() }
  }

  /// The daemon that claimed a job keeps it as saved (its next change is one statement); a change
  /// another daemon made meanwhile is kept: the copy's save finds the row changed, reads it again
  /// and applies its rule to the row as it is.
  @Test func aKeptCopyNeverOverwritesAnotherDaemonsChange() async throws {
    let url = try PostgresURL(PostgresCluster.shared().createDatabase())
    let (owner, other) = try (PostgresJobStore(url: url).started(), PostgresJobStore(url: url).started())
    let job = try await other.submit(request(), idempotencyKey: nil).job
    #expect(try await owner.own(printer: "bar", maxCrashes: 3) == [])
    let claimed = try #require(try await owner.claimNext(printer: "bar"))
    #expect(claimed.id == job.id && owner.claims.withLock { $0[job.id] } != nil, "the claimed job is kept")
    _ = try await other.update(job.id) {
      $0.printerState = "paper low"
      return true
    }
    try await owner.markHandedOver(job.id)
    let stored = try #require(try await other.job(job.id))
    #expect(stored.printerState == "paper low", "the other daemon's change survives the owner's")
    #expect(stored.stage == .printer, "and the owner's is applied to the row as it is")
    try await owner.complete(job.id, cupsJobID: nil)
    #expect(try await other.job(job.id)?.state == .completed)
    #expect(owner.claims.withLock { $0[job.id] } == nil, "an ended job is not kept")
    for store in [owner, other] { await store.close() }
  }

  /// A submission in flight holds the printer's lock shared from before its sequence is drawn
  /// until it commits: a claim waits for it (seen in `pg_locks`) and then takes that job — the
  /// lower sequence — not the later one that committed first.
  @Test func aClaimWaitsForAnEarlierSubmissionStillInFlight() async throws {
    let database = try PostgresCluster.shared().createDatabase()
    let name = String(database.split(separator: "/").last ?? "")
    let url = try PostgresURL(database)
    let (owner, submitter) = try (PostgresJobStore(url: url).started(), PostgresJobStore(url: url).started())
    #expect(try await owner.own(printer: "bar", maxCrashes: 3) == [])
    let inserted = AsyncStream<Void>.makeStream()
    let release = AsyncStream<Void>.makeStream()
    // The earlier submission, in flight: lock taken, row (and sequence) made, not committed.
    let early = Task {
      try await submitter.transaction { connection in
        try await connection.query(
          "SELECT pg_advisory_xact_lock_shared(\(PostgresSchema.submitLock), hashtext('bar'))", logger: submitter.logger
        )
        try await connection.query(
          """
          INSERT INTO job (id, printer, template, data, copies, state, attempts, "createdAt", "updatedAt", "notBefore")
          VALUES ('early', 'bar', 'receipt', '\\x7b7d'::bytea, 1, 'queued', 0, now(), now(), now())
          """, logger: submitter.logger)
        inserted.continuation.yield()
        for await _ in release.stream { break }
      }
    }
    for await _ in inserted.stream { break }
    let later = try await submitter.submit(request(), idempotencyKey: nil).job
    let claim = Task { try await owner.claimNext(printer: "bar") }
    let waiting = await eventually(seconds: 10, poll: 0.05) {
      (try? PostgresCluster.shared().psql(
        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted", database: name)) == "1"
    }
    #expect(waiting, "the claim waits for the submission in flight")
    release.continuation.yield()
    try await early.value
    let claimed = try #require(try await claim.value)
    #expect(claimed.id == "early" && claimed.sequence < later.sequence)
    for store in [owner, submitter] { await store.close() }
  }
}

/// A fleet's daemons that do not drive a printer wait for it quietly: every submission's wake-up
/// reaches every daemon, and each once woke their waiting worker into a new database session
/// (its attempt to take the printer) — at 1,000 submissions a second, 1,000 sessions a second.
@Suite struct PostgresFleetTests {
  @Test func aWorkerWaitingForAnotherDaemonsPrinterIsNotWokenByItsWork() async throws {
    let fixture = try ServerFixture(store: .postgres)
    let database = try PostgresCluster.shared().createDatabase()
    let name = String(database.split(separator: "/").last ?? "")
    let url = try PostgresURL(database)
    let (owner, other) = try (PostgresJobStore(url: url).started(), PostgresJobStore(url: url).started())
    let printer = fixture.server.configuration.printers[0]
    #expect(try await owner.own(printer: printer.name, maxCrashes: 3) == [])
    let worker = PrintWorker(
      printer: printer, store: other, engine: fixture.server.engine, templates: ServerFixture.templates,
      maxAttempts: 5, logger: fixture.server.logger, metrics: fixture.server.metrics)
    func sessions() throws -> Int {
      Int(try PostgresCluster.shared().psql("SELECT sessions FROM pg_stat_database WHERE datname = '\(name)'")) ?? 0
    }
    let start = try sessions()
    let running = Task { await worker.run() }
    // Its first attempt to take the printer has opened a session (and failed).
    #expect(await eventually(seconds: 10, poll: 0.02) { ((try? sessions()) ?? 0) > start })
    let before = try sessions()
    for _ in 0..<60 {
      worker.wake()
      try await Task.sleep(for: .milliseconds(10))
    }
    let after = try sessions()
    #expect(after - before <= 4, "\(after - before) sessions in ~1 s of work for a printer another daemon drives")
    // It still waits: the printer given up, it takes it within its retry interval.
    await owner.release(printer: printer.name)
    #expect(await eventually(seconds: 10, poll: 0.05) { await other.owns(printer: printer.name) })
    worker.stop()
    await running.value
    for store in [owner, other] { await store.close() }
  }
}
