import Foundation
import ReceiptTestSupport
import Testing

/// The shipped `receipt serve` under concurrent clients, killed with SIGKILL at random moments
/// and restarted. Clients behave as the README tells them: an unanswered request is sent again
/// with the same Idempotency-Key (in another JSON spelling: member order and spacing change),
/// and now and then an answered one too (the answer was lost). Orders have arrays. Every job
/// that got 202 prints exactly once, at a directory printer and at the IPP printer behind the
/// test cupsd; every retry of an accepted request is 200 with the same job; none that got an
/// error prints; per-printer order holds.
@Suite(.serialized) struct DaemonCrashTests {
  var templates: String { Tool.packageRoot.appendingPathComponent("Templates").path }

  /// What one client learned about one submission.
  struct Outcome: Sendable {
    var client: Int
    var key: String
    var printer: String
    var status: Int
    var id: String?
    var sequence: Int?
    /// Attempts that got no answer (the daemon was killed) before this one.
    var unanswered: Int
    /// A deliberate resend of an answered request: its status and job id.
    var resend: (status: Int, id: String?)?
  }

  /// An order with arrays (items, taxes, payments), spelled with members in `order`.
  static func order(client: Int, n: Int, shuffled: Bool) -> String {
    let items = (0..<3).map { i in
      #"{"name": "Item \#(client)-\#(n)-\#(i)", "qty": \#(i + 1), "price": "\#(i + 2).50", "modifiers": ["no ice", "extra"]}"#
    }
    var members = [
      #""number": "C\#(client)-\#(n)""#, #""id": 82098291194615\#(4000 + client * 100 + n)"#, #""currency": "EUR""#,
      #""items": [\#(items.joined(separator: ", "))]"#, #""taxes": [{"rate": 7, "amount": "0.77"}]"#,
      #""payments": [{"type": "card", "amount": 11.8}]"#, #""store": {"name": "Corner Café"}"#,
    ]
    if shuffled { members.reverse() }
    return "{" + members.joined(separator: shuffled ? ",\n  " : ", ") + "}"
  }

  @Test func killNineUnderLoadLosesAndDoublesNothing() throws {
    var random = SeededGenerator(defaultSeed: 2_026_112_3)
    let seeds = (0..<5).map { _ in UInt64.random(in: 0...UInt64.max, using: &random) }
    let note = random.seedNote
    let rig = try PrintRig.get()
    try rig.addQueue("daemon-kill")
    let work = try Tool.temporaryDirectory()
    let archive = work.appendingPathComponent("archive")
    try FileManager.default.createDirectory(at: archive, withIntermediateDirectories: true)
    // Kills land on jobs in hand by design here; crash counting (which would make a job that
    // three kills hit dead) is tested on its own, so it is set out of reach.
    let config = work.appendingPathComponent("serve.json")
    try #"{"maxCrashes": 1000}"#.write(to: config, atomically: true, encoding: .utf8)
    let daemon = try Daemon(
      arguments: [
        "--config", config.path, "--db", work.appendingPathComponent("queue.sqlite").path, "--printer",
        "archive=dir:\(archive.path)", "--printer", "counter=cups:daemon-kill", "--templates", templates,
      ],
      environment: ["CUPS_SERVER": rig.server], log: work.appendingPathComponent("serve.log"))
    try daemon.start()

    // Four clients, 60 submissions each: mostly the archive, every fifth to CUPS, every
    // thirteenth invalid (unknown template).
    let clients = 4
    let perClient = 60
    let outcomes = Collected<Outcome>()
    // Clients give up at this time whatever happens (a dead daemon must not keep them retrying
    // after the test has failed).
    let giveUp = Date().addingTimeInterval(240)
    let group = DispatchGroup()
    for client in 0..<clients {
      group.enter()
      let seed = seeds[client]
      Thread.detachNewThread {
        defer { group.leave() }
        var random = SeededGenerator(defaultSeed: seed)
        for n in 0..<perClient where Date() < giveUp {
          Thread.sleep(forTimeInterval: Double.random(in: 0.02...0.06, using: &random))  // a till's pace
          let printer = n % 5 == 4 ? "counter" : "archive"
          let template = n % 13 == 12 ? "no-such-template" : "receipt"
          let key = "client-\(client)-\(n)"
          func body(shuffled: Bool) -> Data {
            let data = Self.order(client: client, n: n, shuffled: shuffled)
            return Data(
              (shuffled
                ? #"{"data": \#(data), "printer": "\#(printer)", "template": "\#(template)"}"#
                : #"{"template": "\#(template)", "printer": "\#(printer)", "data": \#(data)}"#).utf8)
          }
          var unanswered = 0
          let deadline = min(giveUp, Date().addingTimeInterval(90))
          while Date() < deadline {
            guard
              let response = try? daemon.request(
                "POST", "/v1/jobs", body: body(shuffled: unanswered % 2 == 1), headers: ["Idempotency-Key": key],
                timeout: 5)
            else {
              unanswered += 1  // killed before it answered: the same request again, same key
              Thread.sleep(forTimeInterval: 0.05)
              continue
            }
            var outcome = Outcome(
              client: client, key: key, printer: printer, status: response.status, id: response.json["id"] as? String,
              sequence: response.json["sequence"] as? Int, unanswered: unanswered, resend: nil)
            if (response.status == 202 || response.status == 200), Int.random(in: 0..<4, using: &random) == 0,
              let again = try? daemon.request(
                "POST", "/v1/jobs", body: body(shuffled: true), headers: ["Idempotency-Key": key], timeout: 5)
            {
              outcome.resend = (again.status, again.json["id"] as? String)  // the answer was "lost"
            }
            outcomes.add(outcome)
            break
          }
        }
      }
    }
    // The killer: five kill -9 while the clients submit, each followed by a restart. Each comes
    // when the clients have had a given share of their answers (at random shares, all before
    // the last answer), so every kill lands under load however fast the machine is.
    let total = clients * perClient
    let shares = (0..<5).map { k in 0.1 + 0.15 * Double(k) + Double.random(in: 0..<0.1, using: &random) }
    var kills = 0
    for share in shares {
      let answered = waitUntil(seconds: 120, poll: 0.01) { outcomes.count >= Int(share * Double(total)) }
      guard answered else { break }
      daemon.kill9()
      kills += 1
      try daemon.start()
    }
    #expect(group.wait(timeout: .now() + 120) == .success, "the clients finished (\(note))")
    #expect(kills == shares.count, "the daemon was killed under load (\(kills) times)")
    // One more kill while the backlog prints, then let it drain.
    daemon.kill9()
    try daemon.start()

    let all = outcomes.all
    #expect(all.count == clients * perClient, "every submission got an answer (\(note))")
    let accepted = all.filter { $0.status == 202 || $0.status == 200 }
    let rejected = all.filter { $0.status == 422 }
    #expect(accepted.count + rejected.count == all.count, "\(Set(all.map(\.status))) (\(note))")
    #expect(rejected.count == clients * (perClient / 13))
    #expect(all.contains { $0.unanswered > 0 }, "some requests were cut off by a kill and sent again")
    // Every deliberate resend of an accepted request is the same job.
    let resends = accepted.compactMap { outcome in outcome.resend.map { (outcome, $0) } }
    #expect(resends.count >= 20, "resends tried: \(resends.count)")
    for (outcome, resend) in resends {
      #expect(resend.status == 200 && resend.id == outcome.id, "\(outcome.key): \(resend) (\(note))")
    }
    // Every client's own submissions are in its order in the queue.
    for client in 0..<clients {
      let sequences = accepted.filter { $0.client == client }.compactMap(\.sequence)
      #expect(sequences == sequences.sorted(), "client \(client) order")
    }
    let drained = waitUntil(seconds: 180) {
      guard let response = try? daemon.request("GET", "/v1/printers") else { return false }
      let printers = response.json["printers"] as? [[String: Any]] ?? []
      return printers.allSatisfy { ($0["queued"] as? Int) == 0 && ($0["printing"] as? Int) == 0 }
    }
    #expect(drained, "the queue drained")

    // Exactly once at the directory printer, in sequence order by time of writing.
    let files = ((try? FileManager.default.contentsOfDirectory(atPath: archive.path)) ?? []).filter {
      $0.hasSuffix(".pdf")
    }
    let archived = accepted.filter { $0.printer == "archive" }
    #expect(files.count == archived.count, "\(files.count) files for \(archived.count) accepted jobs")
    for outcome in archived {
      #expect(files.filter { $0.contains(outcome.id ?? "?") }.count == 1, "\(outcome.key)")
    }
    let written = files.sorted().compactMap { name -> Date? in
      try? FileManager.default.attributesOfItem(atPath: archive.appendingPathComponent(name).path)[.modificationDate]
        as? Date
    }
    #expect(written == written.sorted(), "the directory printer wrote them in queue order")
    // Exactly once at the IPP printer, in queue order.
    let counter = accepted.filter { $0.printer == "counter" }.sorted { ($0.sequence ?? 0) < ($1.sequence ?? 0) }
    let received = counter.map { rig.received(containing: $0.id ?? "?") }
    #expect(received.allSatisfy { $0.count == 1 }, "\(received.filter { $0.count != 1 })")
    let ippOrder = received.compactMap { $0.first.flatMap { Int($0.prefix { $0.isNumber }) } }
    #expect(ippOrder == ippOrder.sorted(), "the IPP printer got them in queue order")
    // Every accepted job completed; nothing else was stored.
    let stored = (try? daemon.request("GET", "/v1/jobs?limit=500").json["jobs"] as? [[String: Any]]) ?? []
    #expect(stored.count == accepted.count)
    #expect(stored.allSatisfy { $0["state"] as? String == "completed" })
    #expect(daemon.terminate() == 0, "SIGTERM stops it cleanly")
  }
}
