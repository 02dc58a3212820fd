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
    // The archive in the work directory: with a PostgreSQL URL it is `./receipt-archive`, the
    // checkout's, and a daemon killed between writing a document and removing it (`archiveDays`
    // 0) left it there.
    let archiveDirectory = work.appendingPathComponent("receipt-archive").path
    try #"{"maxCrashes": 1000, "archiveDays": 0, "archive": "\#(archiveDirectory)"}"#.write(
      to: config, atomically: true, encoding: .utf8)
    let daemons = try (0..<count).map { i in
      try Daemon(
        arguments: [
          "--config", config.path, "--db", database, "--printer", "archive=dir:\(archive.path)", "--printer",
          "counter=cups:\(queue)", "--templates", templates,
          // No IPP listener (not what is tested): its certificate would be kept in
          // `./receipt-tls`, the checkout's, with a PostgreSQL URL.
          "--no-ipp",
        ],
        environment: ["CUPS_SERVER": rig.server], log: work.appendingPathComponent("serve-\(i).log"))
    }
    for daemon in daemons { try daemon.start() }
    return (daemons, archive)
  }

  /// Clients submitting `perClient` orders each, round robin over the daemons; an unanswered or
  /// 503 request goes again (same key) to the next daemon, as a load balancer would send it. A
  /// client waits 30 s for an answer, longer than a daemon's own bound on a database wait (15 s):
  /// a daemon always answers, and "no answer" (status 0) is a failure the tests see.
  func submit(clients: Int, perClient: Int, pace: Double, to daemons: [Daemon], giveUp: Date) -> (
    DispatchGroup, Collected<Submission>, refused: Collected<String>
  ) {
    let submissions = Collected<Submission>()
    let refused = Collected<String>()
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
                "POST", "/v1/jobs", body: body, headers: ["Idempotency-Key": key], timeout: 30)
            else {
              statuses.append(0)
              Thread.sleep(forTimeInterval: 0.05)
              continue
            }
            statuses.append(response.status)
            if response.status == 503 {
              retryAfter.append(response.headers["retry-after"] ?? "")
              refused.add(key)
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
    return (group, submissions, refused)
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

  /// A password in the URL stays out of the log and out of `ps` when the URL comes from
  /// `RECEIPT_DB`; `?host=` names a socket directory, and the daemon works through it (its
  /// sessions have no client address in pg_stat_activity: they came through the socket).
  @Test func aPasswordInTheDatabaseURLStaysOutOfLogsAndPs() throws {
    let cluster = try PostgresCluster.shared()
    let database = PostgresCluster.databaseName(try cluster.createDatabase())
    let work = try Tool.temporaryDirectory()
    let secret = "s3cret-\(UUID().uuidString.prefix(6))"
    // The test cluster trusts local connections: any password is taken, none is checked.
    // No host: the socket in ?host= (its file is named after the port, as libpq names it).
    let url = "postgres://postgres:\(secret)@:\(cluster.port)/\(database)?host=\(cluster.directory.path)"
    // Its archive in the work directory and no IPP listener: with a PostgreSQL URL both would
    // keep their files in the working directory, the checkout under test.
    let config = work.appendingPathComponent("serve.json")
    try #"{"archive": "\#(work.appendingPathComponent("receipt-archive").path)"}"#.write(
      to: config, atomically: true, encoding: .utf8)
    let daemon = try Daemon(
      arguments: ["--config", config.path, "--printer", "a=dir:\(work.path)", "--templates", templates, "--no-ipp"],
      environment: ["RECEIPT_DB": url], log: work.appendingPathComponent("serve.log"))
    try daemon.start()
    defer { _ = daemon.terminate() }
    let order = try String(contentsOfFile: "\(templates)/Examples/small.json", encoding: .utf8)
    let job = try daemon.request("POST", "/v1/jobs", body: Data(#"{"template": "receipt", "data": \#(order)}"#.utf8))
    let id = try #require(job.json["id"] as? String, "\(job.status)")
    #expect(
      waitUntil(seconds: 30) { (try? daemon.request("GET", "/v1/jobs/\(id)").json["state"] as? String) == "completed" })
    let sessions = try cluster.psql(
      "SELECT count(*) FROM pg_stat_activity WHERE datname = '\(database)' AND client_addr IS NULL "
        + "AND backend_type = 'client backend' AND pid <> pg_backend_pid()", database: database)
    #expect((Int(sessions) ?? 0) > 0, "sessions through the socket: \(sessions)")
    let log = try String(contentsOf: work.appendingPathComponent("serve.log"), encoding: .utf8)
    #expect(!log.contains(secret) && log.contains(database), "\(log)")
    let pid = try #require(daemon.pid)
    let commandLine = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))
    #expect(!String(decoding: commandLine, as: UTF8.self).contains(secret), "ps shows no password")
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

    let (group, submissions, _) = submit(
      clients: 3, perClient: 40, pace: 0.5, to: daemons, giveUp: Date().addingTimeInterval(240))
    // The killer: kill -9 the daemon that owns a printer (alternating), then start it again.
    // Four kills, each when the clients have had a given share of their answers, so each lands
    // under load however fast the machine is.
    var kills = 0
    var takeovers: [TimeInterval] = []
    let name = PostgresCluster.databaseName(database)
    for share in [0.15, 0.35, 0.55, 0.75] {
      guard waitUntil(seconds: 120, poll: 0.05, { submissions.count >= Int(share * 120) }) else { break }
      let printer = kills % 2 == 0 ? "archive" : "counter"
      var victim: Daemon?
      _ = waitUntil(seconds: 15) {
        let owner =
          (try? cluster.psql("SELECT owner FROM printer_owner WHERE printer = '\(printer)'", database: name)) ?? ""
        victim = daemons.first { $0.pid.map { owner.contains("pid \($0) ") } ?? false }
        return victim != nil
      }
      guard let victim else { break }
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
    #expect(kills == 4, "printer owners were killed under load (\(kills) times)")
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

    let (group, submissions, refused) = submit(
      clients: 3, perClient: 30, pace: 0.25, to: daemons, giveUp: Date().addingTimeInterval(240))
    // A fifth of the submissions answered, then PostgreSQL crashes.
    #expect(waitUntil(seconds: 60, poll: 0.05) { submissions.count >= 18 }, "submissions before the crash")
    cluster.stop(mode: "immediate")  // as a crash of the database server
    // Down until every daemon's /readyz said so and a client was refused with a 503.
    let notReady = waitUntil(seconds: 60) {
      daemons.allSatisfy { (try? $0.request("GET", "/readyz", timeout: 10).status) == 503 }
    }
    #expect(waitUntil(seconds: 60) { refused.count > 0 }, "a submission was refused while PostgreSQL was down")
    try cluster.start()
    #expect(group.wait(timeout: .now() + 180) == .success, "the clients finished")
    #expect(notReady, "/readyz said not ready while PostgreSQL was down")

    let all = submissions.all
    #expect(all.count == 90, "every submission got an answer")
    let statuses = Set(all.flatMap(\.statuses))
    #expect(statuses.isSubset(of: [200, 202, 503]), "every request answered, no error but 503: \(statuses)")
    #expect(all.contains { $0.statuses.contains(503) }, "submissions were refused while PostgreSQL was down")
    #expect(all.allSatisfy { $0.retryAfter.allSatisfy { !$0.isEmpty } }, "every 503 says Retry-After")
    let accepted = all.filter { $0.status == 202 || $0.status == 200 }
    #expect(accepted.count == all.count)
    try verify(accepted, daemons: daemons, archive: archive, cluster: cluster, database: database)
    for daemon in daemons { #expect(daemon.terminate() == 0) }
  }
}
