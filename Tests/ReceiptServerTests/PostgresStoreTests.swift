import Foundation
import Logging
import PostgresNIO
import ReceiptKit
@_spi(Internals) import ReceiptModel
import ReceiptTestSupport
import Testing

@testable import ReceiptServer

/// The PostgreSQL store as several daemons see it: one database, several stores (each a daemon's).
@Suite struct PostgresStoreTests {
  static let order = Data(#"{"items": [{"name": "Tea", "price": "2.50"}], "id": 820982911946154508}"#.utf8)

  func request(_ printer: String = "bar") -> JobRequest {
    JobRequest(printer: printer, template: "receipt", data: Self.order)
  }

  /// The daemon whose session to the database died: every connection of its own is ended, as
  /// when its process is killed (`kill -9`).
  static func terminate(printer: String, database: String) throws {
    try PostgresCluster.shared().psql(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
        + "WHERE datname = current_database() AND application_name LIKE 'receipt owns \(printer) (%'",
      database: database)
  }

  /// A store whose background work (pool, migration, listener) never starts answers as
  /// unavailable, and says why, within its bound — not a hang. (No wall-time assertion: under the
  /// suite's load, a wait bounded at 1 s once returned after 28 s.)
  @Test(.timeLimit(.minutes(1))) func aStoreWithoutItsBackgroundWorkIsUnavailableNotHung() async throws {
    let url = try PostgresURL(PostgresCluster.shared().createDatabase())
    let store = try PostgresJobStore(url: url, timeout: .seconds(2))
    do {
      _ = try await store.accept(request(), idempotencyKey: nil)
      Issue.record("a store without its background work stored a job")
    } catch let error as StoreUnavailable {
      #expect(error.reason.contains("its background work is not running"), "\(error)")
    }
  }

  /// A connection's failure is told with its cause: a `PSQLError` printed as it is says only that
  /// it keeps its details to itself, in the logs and in `/readyz` (`StatementError.describe`).
  @Test func aConnectionErrorIsDescribedWithItsCause() async throws {
    let port = try PrintRig.freePortForTests()
    let configuration = PostgresConnection.Configuration(
      host: "127.0.0.1", port: Int(port), username: "postgres", password: nil, database: "none", tls: .disable)
    do {
      _ = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: Logger(label: "test"))
      Issue.record("connected to a port nobody listens on")
    } catch {
      let described = StatementError.describe(error)
      #expect(described.localizedCaseInsensitiveContains("refused"), "\(described)")
    }
  }

  /// The session that holds a printer has TCP keepalive (a vanished machine loses its printers
  /// within seconds): the kernel shows the keepalive timer on the server's end of that session's
  /// socket (`ss`, iproute2), found by its client port in pg_stat_activity.
  @Test func theOwnershipSessionHasTCPKeepalive() async throws {
    let cluster = try PostgresCluster.shared()
    let url = try PostgresURL(cluster.createDatabase())
    let store = try PostgresJobStore(url: url).started()
    #expect(try await store.own(printer: "bar", maxCrashes: 3) == [])
    let clientPort = try cluster.psql(
      "SELECT client_port FROM pg_stat_activity WHERE datname = current_database() "
        + "AND application_name LIKE 'receipt owns bar (%'", database: url.database)
    try #require(Int(clientPort) != nil, "the owning session: \(clientPort)")
    // While data is in flight the socket shows its retransmission timer; idle, the keepalive one.
    var socket = ""
    #expect(
      try await eventually(seconds: 10, poll: 0.05) {
        socket = try Tool.run(
          "ss", ["-tnoH", "state", "established", "( sport = :\(cluster.port) and dport = :\(clientPort) )"]
        ).stdout
        return socket.contains("timer:(keepalive,")
      }, "\(socket)")
    await store.close()
  }

  @Test func oneDaemonOwnsAPrinterAndAnotherTakesOverWhenItsSessionDies() async throws {
    let url = try PostgresURL(PostgresCluster.shared().createDatabase())
    let a = try PostgresJobStore(url: url).started()
    let b = try PostgresJobStore(url: url).started()
    #expect(try await a.own(printer: "bar", maxCrashes: 3) == [])
    #expect(try await b.own(printer: "bar", maxCrashes: 3) == nil, "one owner at a time")
    #expect(try await b.own(printer: "kitchen", maxCrashes: 3) == [], "printers are owned one by one")
    #expect(try await b.claimNext(printer: "bar") == nil, "only the owner claims")

    let jobs = try await (0..<3).asyncMap { _ in try await a.submit(request(), idempotencyKey: nil).job }
    let claimed = try #require(try await a.claimNext(printer: "bar"))
    #expect(claimed.id == jobs[0].id && claimed.state == .printing && claimed.attempts == 1)
    #expect(try await a.claimNext(printer: "bar") == nil, "FIFO: nothing behind a printing head")

    // A's session to the database dies (as with kill -9 of its daemon): B takes the printer and
    // finds the job A had in hand, back at the head, one crash counted.
    try Self.terminate(printer: "bar", database: url.database)
    var recovered: [Job]?
    #expect(
      try await eventually(seconds: 10, poll: 0.02) {
        recovered = try await b.own(printer: "bar", maxCrashes: 3)
        return recovered != nil
      })
    #expect(recovered?.map(\.id) == [jobs[0].id])
    #expect(recovered?.first?.state == .queued && recovered?.first?.crashes == 1)
    #expect(await !a.owns(printer: "bar"), "A knows it lost the printer")

    // Fencing: A cannot record anything about the job it had claimed.
    await #expect(throws: OwnershipLost.self) { try await a.complete(jobs[0].id, cupsJobID: nil) }
    #expect(try await b.job(jobs[0].id)?.state == .queued)
    let again = try #require(try await b.claimNext(printer: "bar"))
    #expect(again.id == jobs[0].id && again.attempts == 2)
    try await b.complete(again.id, cupsJobID: nil)
    #expect(try await b.claimNext(printer: "bar")?.id == jobs[1].id)

    // A clean release hands over without a crash.
    await b.release(printer: "bar")
    let c = try PostgresJobStore(url: url).started()
    let handed = try #require(try await c.own(printer: "bar", maxCrashes: 3))
    #expect(handed.map(\.id) == [jobs[1].id] && handed.first?.crashes == 0)

    // C's own session breaks (PostgreSQL restarted) mid-print: C takes its printer back, the
    // job goes back to the head to be checked, and that is no crash of the job.
    let inHand = try #require(try await c.claimNext(printer: "bar"))
    try Self.terminate(printer: "bar", database: url.database)
    // The worker's check before a claim asks nothing of the database: the ended session says it.
    #expect(await eventually(seconds: 10, poll: 0.02) { !c.holds(printer: "bar") })
    #expect(await !c.owns(printer: "bar"))
    let back = try #require(try await c.own(printer: "bar", maxCrashes: 3))
    #expect(back.map(\.id) == [inHand.id] && back.first?.crashes == 0 && back.first?.state == .queued)
    for store in [a, b, c] { await store.close() }
  }

  @Test func idempotencyKeysAreUniqueAcrossDaemonsAndOrderIsCommitOrder() async throws {
    let url = try PostgresURL(PostgresCluster.shared().createDatabase())
    let stores = try (0..<3).map { _ in try PostgresJobStore(url: url).started() }
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
    let all = try await stores[0].jobs(state: nil, printer: "bar", limit: 100, before: nil)
    #expect(all.count == 20)
    // Claimed in sequence order, one at a time, by whichever daemon owns the printer.
    #expect(try await stores[1].own(printer: "bar", maxCrashes: 3) == [])
    var printed: [Int64] = []
    while let job = try await stores[1].claimNext(printer: "bar") {
      printed.append(job.sequence)
      try await stores[1].complete(job.id, cupsJobID: nil)
    }
    #expect(printed == all.map(\.sequence).sorted())
    for store in stores { await store.close() }
  }

  @Test func workAndChangesArriveThroughNotificationsFromOtherDaemons() async throws {
    let url = try PostgresURL(PostgresCluster.shared().createDatabase())
    let listening = try PostgresJobStore(url: url).started()
    let other = try PostgresJobStore(url: url).started()
    try await listening.open()
    let woken = Locked<[String]>([])
    listening.observeWork { printer in woken.withLock { $0.append(printer) } }
    let feed = RecordingListener()
    listening.observeChanges(feed)
    // The listener is connected once a notification of its own arrives.
    let probe = try await listening.submit(request("probe"), idempotencyKey: nil).job
    #expect(await eventually(seconds: 10, poll: 0.02) { feed.jobs.contains { $0.id == probe.id } })
    woken.withLock { $0 = [] }
    let job = try await other.submit(request("kitchen"), idempotencyKey: nil).job
    #expect(
      await eventually(seconds: 10, poll: 0.02) { woken.withLock { $0 }.contains("kitchen") },
      "woken by another daemon's submission")
    #expect(await eventually(seconds: 10, poll: 0.02) { feed.jobs.contains { $0.id == job.id } })
    _ = try await other.cancel(job.id)
    #expect(
      await eventually(seconds: 10, poll: 0.02) {
        feed.jobs.filter { $0.id == job.id }.map(\.state) == [.queued, .canceled]
      }, "each committed change, in order")
    for store in [listening, other] { await store.close() }
  }

  /// A daemon started with its database (a machine booting) waits for it within its bound: the
  /// server comes up two seconds after the store starts, and the store opens. (The first session
  /// is made on its own, to report TLS and login failures at once; refused ones are tried again.)
  @Test(.timeLimit(.minutes(2))) func aStoreStartedBeforeItsDatabaseWaitsForIt() async throws {
    let cluster = try PostgresCluster()
    defer { cluster.stop() }
    let url = try PostgresURL(cluster.createDatabase())
    cluster.stop()
    let store = try PostgresJobStore(url: url, timeout: .seconds(30)).started()
    let starting = Task.detached {
      try await Task.sleep(for: .seconds(2))
      try cluster.start()
    }
    try await store.open()
    try await starting.value
    let job = try await store.accept(request(), idempotencyKey: nil).job
    #expect(try await store.job(job.id)?.state == .queued)
    await store.close()
  }

  @Test func aDatabaseThatIsGoneIsUnavailableNotAnError() async throws {
    let gone = try PostgresJobStore(url: PostgresURL("postgres://postgres@127.0.0.1:1/nothing"), timeout: .seconds(3))
      .started()
    do {
      try await gone.open()
      Issue.record("opened a store on a port nobody listens on")
    } catch let error as StoreUnavailable {
      #expect(
        error.reason.localizedCaseInsensitiveContains("refused"), "the reason, not only the bound: \(error.reason)")
    }
    await #expect(throws: StoreUnavailable.self) { try await gone.job("x") }
    await gone.close()
    #expect(throws: ReceiptError.self) { try PostgresURL("postgres://127.0.0.1/db") }
    #expect(throws: ReceiptError.self) { try PostgresURL("postgres://u@h/db?sslmode=required") }
    let url = try PostgresURL("postgres://shop:secret@db.local:6543/queue")
    #expect(url.redacted == "postgres://shop:***@db.local:6543/queue")
    let socket = try PostgresURL("postgres://shop:secret@:6543/queue?host=/run/postgresql")
    #expect(socket.socketDirectory == "/run/postgresql" && socket.port == 6543)
    #expect(socket.redacted == "postgres://shop:***@:6543/queue?host=/run/postgresql", "the port names the socket file")
  }
}

/// Keeps what the event feed was told.
final class RecordingListener: JobChangeListener, Sendable {
  private let seen = Locked<[Job]>([])
  var jobs: [Job] { seen.withLock { $0 } }
  var wantsChanges: Bool { true }
  func jobsChanged(_ jobs: [Job]) { seen.withLock { $0.append(contentsOf: jobs) } }
  func changesMissed() {}
}
