import Foundation
import ReceiptTestSupport
import Testing

/// Several shipped `receipt serve` processes on one PostgreSQL database: clients submit to any of
/// them, printer owners are killed with SIGKILL, PostgreSQL itself restarts. Every 202 prints
/// exactly once (at a directory printer and at the IPP printer behind the test cupsd), in
/// per-printer order, printed by one daemon, and every printer ends owned.
@Suite(.serialized) struct PostgresFailoverTests {
  var templates: String { Tool.packageRoot.appendingPathComponent("Templates").path }

  struct Submission: Sendable {
    var key: String
    var printer: String
    var status: Int
    var id: String?
    var sequence: Int?
    var statuses: [Int]
    var retryAfter: [String]
  }

  /// Started daemons on `database` with a directory printer (`archive`) and the test CUPS queue
  /// `queue` (added to the rig).
  func daemons(_ count: Int, database: String, queue: String) throws -> (daemons: [Daemon], archive: URL) {
    let rig = try PrintRig.get()
    try rig.addQueue(queue)
    let work = try Tool.temporaryDirectory()
    let archive = work.appendingPathComponent("archive")
    try FileManager.default.createDirectory(at: archive, withIntermediateDirectories: true)
    let config = work.appendingPathComponent("serve.json")
    try #"{"maxCrashes": 1000, "archiveDays": 0}"#.write(to: config, atomically: true, encoding: .utf8)
    let daemons = try (0..<count).map { i in
      try Daemon(
        arguments: [
          "--config", config.path, "--db", database, "--printer", "archive=dir:\(archive.path)", "--printer",
          "counter=cups:\(queue)", "--templates", templates,
        ],
        environment: ["CUPS_SERVER": rig.server], log: work.appendingPathComponent("serve-\(i).log"))
    }
    for daemon in daemons { try daemon.start() }
    return (daemons, archive)
  }

  /// Clients submitting `perClient` orders each, round robin over the daemons; an unanswered or
  /// 503 request goes again (same key) to the next daemon, as a load balancer would send it.
  func submit(clients: Int, perClient: Int, pace: Double, to daemons: [Daemon], giveUp: Date) -> (
    DispatchGroup, Collected<Submission>
  ) {
    let submissions = Collected<Submission>()
    let group = DispatchGroup()
    for client in 0..<clients {
      group.enter()
      Thread.detachNewThread {
        defer { group.leave() }
        for n in 0..<perClient where Date() < giveUp {
          Thread.sleep(forTimeInterval: pace)  // a till's pace
          let printer = n % 4 == 3 ? "counter" : "archive"
          // Every seventh key is also sent a second time, to another daemon.
          let key = "c\(client)-\(n)"
          let body = Data(
            #"{"template": "receipt", "printer": "\#(printer)", "data": {"number": "\#(key)", "id": 820982911946154\#(client)\#(n), "items": [{"name": "Tea", "qty": 1, "price": "2.50"}]}}"#
              .utf8)
          var statuses: [Int] = []
          var retryAfter: [String] = []
          var target = client + n
          while Date() < giveUp {
            let daemon = daemons[target % daemons.count]
            target += 1
            guard
              let response = try? daemon.request(
                "POST", "/v1/jobs", body: body, headers: ["Idempotency-Key": key], timeout: 5)
            else {
              statuses.append(0)
              Thread.sleep(forTimeInterval: 0.05)
              continue
            }
            statuses.append(response.status)
            if response.status == 503 {
              retryAfter.append(response.headers["retry-after"] ?? "")
              Thread.sleep(forTimeInterval: 0.2)
              continue
            }
            var submission = Submission(
              key: key, printer: printer, status: response.status, id: response.json["id"] as? String,
              sequence: response.json["sequence"] as? Int, statuses: statuses, retryAfter: retryAfter)
            if n % 7 == 0,
              let again = try? daemons[target % daemons.count].request(
                "POST", "/v1/jobs", body: body, headers: ["Idempotency-Key": key], timeout: 5),
              again.json["id"] as? String != submission.id
            {
              submission.status = -again.status  // a second job for one key: recorded as a failure
            }
            submissions.add(submission)
            break
          }
        }
      }
    }
    return (group, submissions)
  }

  /// Checks that every accepted job printed exactly once, in order, and that the daemons drained.
  func verify(
    _ accepted: [Submission], daemons: [Daemon], archive: URL, cluster: PostgresCluster, database: String
  ) throws {
    let rig = try PrintRig.get()
    let drained = waitUntil(seconds: 180) {
      guard let response = try? daemons[0].request("GET", "/v1/printers") else { return false }
      let printers = response.json["printers"] as? [[String: Any]] ?? []
      return printers.allSatisfy { ($0["queued"] as? Int) == 0 && ($0["printing"] as? Int) == 0 }
    }
    #expect(drained, "the queue drained")
    let files = ((try? FileManager.default.contentsOfDirectory(atPath: archive.path)) ?? []).filter {
      $0.hasSuffix(".pdf")
    }
    let archived = accepted.filter { $0.printer == "archive" }
    #expect(files.count == archived.count, "\(files.count) files for \(archived.count) accepted jobs")
    for submission in archived {
      #expect(files.filter { $0.contains(submission.id ?? "?") }.count == 1, "\(submission.key)")
    }
    let written = archived.sorted { ($0.sequence ?? 0) < ($1.sequence ?? 0) }.compactMap { submission in
      files.first { $0.contains(submission.id ?? "?") }.flatMap {
        try? FileManager.default.attributesOfItem(atPath: archive.appendingPathComponent($0).path)[.modificationDate]
          as? Date
      }
    }
    #expect(written == written.sorted(), "the directory printer wrote them in queue order")
    let counter = accepted.filter { $0.printer == "counter" }.sorted { ($0.sequence ?? 0) < ($1.sequence ?? 0) }
    let received = counter.map { rig.received(containing: $0.id ?? "?") }
    #expect(received.allSatisfy { $0.count == 1 }, "\(received.filter { $0.count != 1 })")
    let ippOrder = received.compactMap { $0.first.flatMap { Int($0.prefix { $0.isNumber }) } }
    #expect(ippOrder == ippOrder.sorted(), "the IPP printer got them in queue order")
    // Stored: exactly the accepted jobs, all completed.
    let name = PostgresCluster.databaseName(database)
    let states = try cluster.psql("SELECT state || ' ' || count(*) FROM job GROUP BY state", database: name)
    #expect(states == "completed \(accepted.count)", "\(states)")
    // Every printer ends owned: two session advisory locks held by live daemons.
    let owned = try cluster.psql(
      "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = \(0x7263_7001) "
        + "AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
      database: name)
    #expect(owned == "2", "printers owned at the end: \(owned)")
    // Any daemon says which daemon drives each printer: a live one.
    let listed = (try? daemons[0].request("GET", "/v1/printers").json["printers"] as? [[String: Any]]) ?? []
    let owners = listed.compactMap { $0["owner"] as? String }
    #expect(owners.count == 2, "\(listed)")
    #expect(
      owners.allSatisfy { owner in daemons.contains { $0.pid.map { owner.contains("pid \($0) ") } ?? false } },
      "\(owners)")
  }

  // Both tests wait for minutes on threads of their own, never on Swift's concurrency pool (two
  // threads here, which the other suites' daemons under test need meanwhile).
  @Test func threeDaemonsKilledWhileOwningTheirPrintersPrintEveryJobOnce() async throws {
    try await offPool { try self.threeDaemonsKilled() }
  }

  @Test func postgresRestartedMidRunLosesNothingAndAnswers503WithRetryAfter() async throws {
    try await offPool { try self.postgresRestarted() }
  }

  func threeDaemonsKilled() throws {
    let cluster = try PostgresCluster.shared()
    let database = try cluster.createDatabase()
    let (daemons, archive) = try daemons(3, database: database, queue: "pg-failover")

    let (group, submissions) = submit(
      clients: 3, perClient: 40, pace: 0.5, to: daemons, giveUp: Date().addingTimeInterval(240))
    // The killer: kill -9 the daemon that owns a printer (alternating), then start it again.
    var kills = 0
    var takeovers: [TimeInterval] = []
    let name = PostgresCluster.databaseName(database)
    while group.wait(timeout: .now() + .milliseconds(1000)) == .timedOut, kills < 6 {
      let printer = kills % 2 == 0 ? "archive" : "counter"
      let owner =
        (try? cluster.psql("SELECT owner FROM printer_owner WHERE printer = '\(printer)'", database: name)) ?? ""
      guard let victim = daemons.first(where: { $0.pid.map { owner.contains("pid \($0) ") } ?? false }) else {
        continue
      }
      victim.kill9()
      kills += 1
      // Another daemon (or the victim, restarted) drives the printer again within a bounded time.
      let killed = Date()
      try victim.start()
      let taken = waitUntil(seconds: 15) {
        let now = (try? cluster.psql("SELECT owner FROM printer_owner WHERE printer = '\(printer)'", database: name))
        return daemons.contains { daemon in daemon.pid.map { now?.contains("pid \($0) ") == true } ?? false }
      }
      takeovers.append(taken ? Date().timeIntervalSince(killed) : .infinity)
    }
    #expect(group.wait(timeout: .now() + 120) == .success, "the clients finished")
    #expect(kills >= 4, "printer owners were killed under load (\(kills) times)")
    // Ownership is retried every second; a daemon restart takes a second or two more.
    #expect(takeovers.allSatisfy { $0 < 10 }, "a killed owner's printer was taken over in \(takeovers) s")

    let all = submissions.all
    #expect(all.count == 120, "every submission got an answer")
    let accepted = all.filter { $0.status == 202 || $0.status == 200 }
    #expect(accepted.count == all.count, "\(all.filter { $0.status != 202 && $0.status != 200 }.map(\.key))")
    #expect(Set(accepted.compactMap(\.id)).count == accepted.count, "one job per key across daemons")
    try verify(accepted, daemons: daemons, archive: archive, cluster: cluster, database: database)
    for daemon in daemons { #expect(daemon.terminate() == 0, "SIGTERM stops it cleanly") }
  }

  func postgresRestarted() throws {
    let cluster = try PostgresCluster()  // its own: it is stopped and started here
    defer { cluster.stop(mode: "immediate") }
    let database = try cluster.createDatabase()
    let (daemons, archive) = try daemons(2, database: database, queue: "pg-restart")

    let (group, submissions) = submit(
      clients: 3, perClient: 30, pace: 0.25, to: daemons, giveUp: Date().addingTimeInterval(240))
    Thread.sleep(forTimeInterval: 2)
    cluster.stop(mode: "immediate")  // as a crash of the database server
    var notReady = false
    for daemon in daemons {
      notReady = notReady || (try? daemon.request("GET", "/readyz", timeout: 10).status) == 503
    }
    Thread.sleep(forTimeInterval: 2)
    try cluster.start()
    #expect(group.wait(timeout: .now() + 180) == .success, "the clients finished")
    #expect(notReady, "/readyz said not ready while PostgreSQL was down")

    let all = submissions.all
    #expect(all.count == 90, "every submission got an answer")
    let statuses = Set(all.flatMap(\.statuses))
    #expect(statuses.isSubset(of: [0, 200, 202, 503]), "no error but 503: \(statuses)")
    #expect(all.contains { $0.statuses.contains(503) }, "submissions were refused while PostgreSQL was down")
    #expect(all.allSatisfy { $0.retryAfter.allSatisfy { !$0.isEmpty } }, "every 503 says Retry-After")
    let accepted = all.filter { $0.status == 202 || $0.status == 200 }
    #expect(accepted.count == all.count)
    try verify(accepted, daemons: daemons, archive: archive, cluster: cluster, database: database)
    for daemon in daemons { #expect(daemon.terminate() == 0) }
  }
}
