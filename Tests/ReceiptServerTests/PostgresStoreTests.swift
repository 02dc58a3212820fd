import Foundation
import ReceiptKit
import ReceiptTestSupport
import Synchronization
import Testing

@testable import ReceiptServer

/// The PostgreSQL store as several daemons see it: one database, several stores (each a daemon's).
@Suite struct PostgresStoreTests {
  static let order = Data(#"{"items": [{"name": "Tea", "price": "2.50"}], "id": 820982911946154508}"#.utf8)

  func request(_ printer: String = "bar") -> JobRequest {
    JobRequest(printer: printer, template: "receipt", data: Self.order)
  }

  @Test func oneDaemonOwnsAPrinterAndAnotherTakesOverWhenItsSessionDies() async throws {
    try await offPool { try self.ownership() }
  }

  @Test func workAndChangesArriveThroughNotificationsFromOtherDaemons() async throws {
    try await offPool { try self.notifications() }
  }

  /// Waits on a thread of its own (``offPool``), not on the concurrency pool.
  func ownership() throws {
    let url = try PostgresURL(PostgresCluster.shared().createDatabase())
    let a = try PostgresJobStore(url: url)
    let b = try PostgresJobStore(url: url)
    #expect(try a.own(printer: "bar", maxCrashes: 3, now: Date()) == [])
    #expect(try b.own(printer: "bar", maxCrashes: 3, now: Date()) == nil, "one owner at a time")
    #expect(try b.own(printer: "kitchen", maxCrashes: 3, now: Date()) == [], "printers are owned one by one")
    #expect(try b.claimNext(printer: "bar", now: Date()) == nil, "only the owner claims")

    let jobs = try (0..<3).map { _ in try a.submit(request(), idempotencyKey: nil, now: Date()).job }
    let claimed = try #require(try a.claimNext(printer: "bar", now: Date()))
    #expect(claimed.id == jobs[0].id && claimed.state == .printing && claimed.attempts == 1)
    #expect(try a.claimNext(printer: "bar", now: Date()) == nil, "FIFO: nothing behind a printing head")

    // A's session to the database dies (as with kill -9 of its daemon): B takes the printer and
    // finds the job A had in hand, back at the head, one crash counted.
    try a.owners.withLock { $0["bar"] }.map { ownership in
      try PostgresCluster.shared().psql(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
          + "WHERE datname = current_database() AND application_name LIKE 'receipt owns bar (%'",
        database: url.database)
      _ = ownership
    }
    var recovered: [Job]?
    #expect(
      try waitUntil(seconds: 10, poll: 0.02) {
        recovered = try b.own(printer: "bar", maxCrashes: 3, now: Date()); return recovered != nil
      })
    #expect(recovered?.map(\.id) == [jobs[0].id])
    #expect(recovered?.first?.state == .queued && recovered?.first?.crashes == 1)
    #expect(!a.owns(printer: "bar"), "A knows it lost the printer")

    // Fencing: A cannot record anything about the job it had claimed.
    #expect(throws: OwnershipLost.self) { try a.complete(jobs[0].id, cupsJobID: nil, now: Date()) }
    #expect(try b.job(jobs[0].id)?.state == .queued)
    let again = try #require(try b.claimNext(printer: "bar", now: Date()))
    #expect(again.id == jobs[0].id && again.attempts == 2)
    try b.complete(again.id, cupsJobID: nil, now: Date())
    #expect(try b.claimNext(printer: "bar", now: Date())?.id == jobs[1].id)

    // A clean release hands over without a crash.
    b.release(printer: "bar")
    let c = try PostgresJobStore(url: url)
    let handed = try #require(try c.own(printer: "bar", maxCrashes: 3, now: Date()))
    #expect(handed.map(\.id) == [jobs[1].id] && handed.first?.crashes == 0)

    // C's own session breaks (PostgreSQL restarted) mid-print: C takes its printer back, the
    // job goes back to the head to be checked, and that is no crash of the job.
    let inHand = try #require(try c.claimNext(printer: "bar", now: Date()))
    try PostgresCluster.shared().psql(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
        + "WHERE datname = current_database() AND application_name LIKE 'receipt owns bar (%'",
      database: url.database)
    #expect(waitUntil(seconds: 10, poll: 0.02) { !c.owns(printer: "bar") })
    let back = try #require(try c.own(printer: "bar", maxCrashes: 3, now: Date()))
    #expect(back.map(\.id) == [inHand.id] && back.first?.crashes == 0 && back.first?.state == .queued)
  }

  @Test func idempotencyKeysAreUniqueAcrossDaemonsAndOrderIsCommitOrder() async throws {
    let url = try PostgresURL(PostgresCluster.shared().createDatabase())
    let stores = try (0..<3).map { _ in try PostgresJobStore(url: url) }
    // 60 submissions from three daemons at once, each key sent to every daemon.
    let results = try await withThrowingTaskGroup(of: (Job, Bool).self) { group in
      for i in 0..<20 {
        for store in stores {
          group.addTask { try await store.accept(self.request(), idempotencyKey: "key-\(i)") }
        }
      }
      return try await group.reduce(into: []) { $0.append($1) }
    }
    #expect(results.filter(\.1).count == 20, "one job per key")
    let byKey = Dictionary(grouping: results.map(\.0), by: \.idempotencyKey)
    #expect(byKey.count == 20 && byKey.values.allSatisfy { Set($0.map(\.id)).count == 1 })
    let all = try stores[0].jobs(state: nil, printer: "bar", limit: 100, before: nil)
    #expect(all.count == 20)
    // Claimed in sequence order, one at a time, by whichever daemon owns the printer.
    #expect(try stores[1].own(printer: "bar", maxCrashes: 3, now: Date()) == [])
    var printed: [Int64] = []
    while let job = try stores[1].claimNext(printer: "bar", now: Date()) {
      printed.append(job.sequence)
      try stores[1].complete(job.id, cupsJobID: nil, now: Date())
    }
    #expect(printed == all.map(\.sequence).sorted())
  }

  func notifications() throws {
    let url = try PostgresURL(PostgresCluster.shared().createDatabase())
    let listening = try PostgresJobStore(url: url)
    let other = try PostgresJobStore(url: url)
    let woken = Mutex<[String]>([])
    listening.observeWork { printer in woken.withLock { $0.append(printer) } }
    let feed = RecordingListener()
    listening.observeChanges(feed)
    let job = try other.submit(request("kitchen"), idempotencyKey: nil, now: Date()).job
    #expect(
      waitUntil(seconds: 10, poll: 0.02) { woken.withLock { $0 } == ["kitchen"] },
      "woken by another daemon's submission")
    #expect(waitUntil(seconds: 10, poll: 0.02) { feed.jobs.map(\.id) == [job.id] })
    _ = try other.cancel(job.id, now: Date())
    #expect(
      waitUntil(seconds: 10, poll: 0.02) { feed.jobs.map(\.state) == [.queued, .canceled] },
      "each committed change, in order")
  }

  @Test func aDatabaseThatIsGoneIsUnavailableNotAnError() throws {
    #expect(throws: StoreUnavailable.self) {
      try PostgresJobStore(url: PostgresURL("postgres://postgres@127.0.0.1:1/nothing"))
    }
    #expect(throws: ReceiptError.self) { try PostgresURL("postgres://127.0.0.1/db") }
    #expect(throws: ReceiptError.self) { try PostgresURL("postgres://u@h/db?sslmode=require") }
    let url = try PostgresURL("postgres://shop:secret@db.local:6543/queue")
    #expect(url.redacted == "postgres://shop:***@db.local:6543/queue")
  }
}

/// Keeps what the event feed was told.
final class RecordingListener: JobChangeListener, Sendable {
  private let seen = Mutex<[Job]>([])
  var jobs: [Job] { seen.withLock { $0 } }
  var wantsChanges: Bool { true }
  func jobsChanged(_ jobs: [Job]) { seen.withLock { $0.append(contentsOf: jobs) } }
  func changesMissed() {}
}
