import Foundation
import Hummingbird
import ReceiptKit
import ReceiptTestSupport
import Testing

@testable import ReceiptServer

/// The daemon against the real cupsd and IPP printer of the rig, each test on its own queue.
@Suite(.serialized) struct CUPSWorkerTests {
  func fixture(_ rig: PrintRig, queue: String) throws -> ServerFixture {
    try ServerFixture(extraPrinters: [PrinterConfig(name: "counter", target: .cups(queue: queue, server: rig.server))])
  }

  func submit(_ fixture: ServerFixture, count: Int) async throws -> [Job] {
    try await (0..<count).asyncMap { _ in
      try await fixture.server.store.submit(
        JobRequest(printer: "counter", template: "receipt", data: Data(ServerFixture.order.utf8)), idempotencyKey: nil,
        now: Date()
      ).job
    }
  }

  func job(_ fixture: ServerFixture, _ id: String) async -> Job? { try? await fixture.server.store.job(id) }

  /// Stops a queue and waits until cupsd reports it stopped. Under a loaded test run a
  /// cupsdisable right after lpadmin was seen not to stick (the queue read idle again a moment
  /// later); it is sent again until the state holds.
  func stopQueue(_ rig: PrintRig, _ queue: String, reason: String? = nil) throws {
    let engine = try ReceiptEngine()
    var seen: [String] = []
    let deadline = Date().addingTimeInterval(30)
    while Date() < deadline {
      try rig.cupsTool("/usr/sbin/cupsdisable", (reason.map { ["-r", $0] } ?? []) + [queue])
      Thread.sleep(forTimeInterval: 0.2)
      let state = try engine.printers(server: rig.server).first { $0.name == queue }?.state.rawValue ?? "none"
      if seen.last != state { seen.append(state) }
      if state == "stopped" { return }
    }
    throw RigFailure("queue \(queue) did not stay stopped; states seen: \(seen)")
  }

  /// Tickets with a fallback do not wait for a stopped queue: the one CUPS holds is canceled
  /// there (confirmed) and both print at the fallback with the banner; resumed, the queue prints
  /// neither.
  @Test func aStoppedQueuesTicketsMoveToTheFallbackAndNeverPrintTwice() async throws {
    let rig = try PrintRig.get()
    try rig.addQueue("daemon-failover")
    try stopQueue(rig, "daemon-failover", reason: "out of paper")
    let fixture = try ServerFixture(
      extraPrinters: [PrinterConfig(name: "counter", target: .cups(queue: "daemon-failover", server: rig.server))]
    ) { $0.failoverAfter = 1 }
    let jobs = try await (0..<2).asyncMap { _ in
      var request = JobRequest(printer: "counter", template: "kitchen", data: Data(ServerFixture.order.utf8))
      request.route = "kitchen"
      request.label = "KITCHEN"
      request.fallback = "archive"
      return try await fixture.server.store.submit(request, idempotencyKey: nil, now: Date()).job
    }
    try await fixture.running {
      #expect(
        await fixture.wait(seconds: 60) {
          await jobs.asyncAllSatisfy { await job(fixture, $0.id)?.state == .completed }
        },
        "\(jobs.map(\.id))")
      for original in jobs {
        let moved = try #require(await job(fixture, original.id))
        #expect(moved.printer == "archive" && moved.fallbackFor == "counter", "\(moved)")
        #expect(
          moved.failoverReason?.contains("out of paper") == true,
          "the queue's reason: \(moved.failoverReason ?? "none")")
      }
      let sent = try fixture.server.engine.cupsJobs(
        named: PrintWorker.cupsJobName(jobs[0]), queue: "daemon-failover", server: rig.server)
      #expect(sent.count == 1 && sent[0].state == .canceled, "the held CUPS job was canceled: \(sent)")
      try #require(fixture.printed.count == 2)
      let text = try Tool.run("pdftotext", [fixture.archive.appendingPathComponent(fixture.printed[0]).path, "-"])
        .stdout
      #expect(text.contains("FOR KITCHEN"), "\(text)")
      try rig.cupsTool("/usr/sbin/cupsenable", ["daemon-failover"])
      // A job sent after them comes out: had CUPS kept one of them, it would have printed first.
      let marker = try rig.printMarker(queue: "daemon-failover")
      #expect(await eventually(seconds: 60) { rig.hasReceived(marker) }, "the resumed queue prints")
      #expect(jobs.allSatisfy { rig.received(containing: $0.id).isEmpty }, "the resumed queue printed none of them")
    }
  }

  @Test func aStoppedQueueHoldsTheJobsAndResumedTheyPrintInOrder() async throws {
    let rig = try PrintRig.get()
    try rig.addQueue("daemon-hold")
    try stopQueue(rig, "daemon-hold", reason: "out of paper")
    let fixture = try fixture(rig, queue: "daemon-hold")
    let jobs = try await submit(fixture, count: 3)
    try await fixture.running {
      // The head is sent and held by CUPS; the daemon reports why and holds the rest.
      #expect(
        await fixture.wait {
          await job(fixture, jobs[0].id)?.printerState?.contains("printer-stopped") == true
        })
      let head = try #require(await job(fixture, jobs[0].id))
      #expect(head.state == .printing && head.cupsJobID != nil)
      #expect(head.printerState?.contains("out of paper") == true, "\(head.printerState ?? "")")
      // An invariant over time, checked throughout, not once after a sleep: while the head is
      // held, the jobs behind it stay queued.
      let held = Date().addingTimeInterval(2)
      while Date() < held {
        let (second, third) = (await job(fixture, jobs[1].id)?.state, await job(fixture, jobs[2].id)?.state)
        #expect(second == .queued && third == .queued)
        try await Task.sleep(for: .seconds(0.1))
      }
      #expect(await job(fixture, jobs[0].id)?.attempts == 1, "waiting costs no attempt")
      let sent = try fixture.server.engine.cupsJobs(
        named: PrintWorker.cupsJobName(jobs[0]), queue: "daemon-hold", server: rig.server)
      #expect(sent.count == 1 && sent[0].state == .pending, "\(sent)")
      #expect(jobs.allSatisfy { rig.received(containing: $0.id).isEmpty }, "nothing printed while stopped")

      try rig.cupsTool("/usr/sbin/cupsenable", ["daemon-hold"])
      #expect(
        await fixture.wait(seconds: 60) {
          await jobs.asyncAllSatisfy { await job(fixture, $0.id)?.state == .completed }
        },
        "\(jobs.map(\.id))")
      let files = jobs.map { rig.received(containing: $0.id) }
      #expect(files.allSatisfy { $0.count == 1 }, "each printed exactly once: \(files)")
      let order = files.compactMap { $0.first.flatMap { Int($0.prefix { $0.isNumber }) } }
      #expect(order == order.sorted() && order.count == 3, "in submission order: \(order)")
    }
  }

  @Test func aRemovedPrinterFailsTheJobWithTheReason() async throws {
    let rig = try PrintRig.get()
    // Made and removed by the rig at start (adding and removing queues while others print
    // upsets cupsd).
    let fixture = try fixture(rig, queue: "daemon-gone")
    let jobs = try await submit(fixture, count: 2)
    try await fixture.running {
      #expect(await fixture.wait { await jobs.asyncAllSatisfy { await job(fixture, $0.id)?.state == .failed } })
      let failed = try #require(await job(fixture, jobs[0].id))
      #expect(failed.error?.contains("no printer named 'daemon-gone'") == true, "\(failed.error ?? "")")
      #expect(failed.attempts == 1, "a removed printer is not retried")
    }
  }

  @Test func aJobCUPSHasAfterACrashIsNotSentAgain() async throws {
    let rig = try PrintRig.get()
    try rig.addQueue("daemon-crash")
    let fixture = try fixture(rig, queue: "daemon-crash")
    let jobs = try await submit(fixture, count: 2)
    // The crash: job 0 was claimed and sent to CUPS (and printed), but never marked.
    _ = try await fixture.server.store.own(printer: "counter", maxCrashes: 3)  // this daemon drives it
    let claimed = try #require(try await fixture.server.store.claimNext(printer: "counter", now: Date()))
    var document = try fixture.server.engine.templateDocument(
      template: "receipt", data: claimed.data, templates: ServerFixture.templates
    ).document
    document.title = PrintWorker.cupsJobName(claimed)
    _ = try fixture.server.engine.print(
      document,
      request: PrintRequest(
        printer: "daemon-crash", wait: true, server: rig.server, jobName: PrintWorker.cupsJobName(claimed)))
    #expect(rig.received(containing: claimed.id).count == 1)
    // The restart on the same database.
    let restarted = try ReceiptServer(configuration: fixture.server.configuration)
    try await running(restarted) {
      #expect(
        await fixture.wait(seconds: 60) {
          await jobs.asyncAllSatisfy { await job(fixture, $0.id)?.state == .completed }
        })
      #expect(rig.received(containing: jobs[0].id).count == 1, "not printed a second time")
      #expect(rig.received(containing: jobs[1].id).count == 1)
      #expect(await job(fixture, jobs[0].id)?.cupsJobID != nil, "matched to its CUPS job")
    }
  }

  /// The crash cut the send off after Create-Job: CUPS has a job of that name waiting for its
  /// document (`job-incoming`). It cannot have printed, so it is canceled and the receipt sent
  /// again; it prints once.
  @Test func aJobWhoseDocumentNeverArrivedIsCanceledAndSentAgain() async throws {
    let rig = try PrintRig.get()
    try rig.addQueue("daemon-incoming")
    let fixture = try fixture(rig, queue: "daemon-incoming")
    let jobs = try await submit(fixture, count: 1)
    _ = try await fixture.server.store.own(printer: "counter", maxCrashes: 3)  // this daemon drives it
    let claimed = try #require(try await fixture.server.store.claimNext(printer: "counter", now: Date()))
    let test = try Tool.temporaryDirectory().appendingPathComponent("create-job.test")
    try """
    {
      NAME "Create-Job without a document"
      OPERATION Create-Job
      GROUP operation-attributes-tag
      ATTR charset attributes-charset utf-8
      ATTR naturalLanguage attributes-natural-language en
      ATTR uri printer-uri $uri
      ATTR name requesting-user-name root
      ATTR name job-name "\(PrintWorker.cupsJobName(claimed))"
      STATUS successful-ok
      EXPECT job-id OF-TYPE integer
    }
    """.write(to: test, atomically: true, encoding: .utf8)
    let created = try Tool.run("ipptool", ["-t", "ipp://\(rig.server)/printers/daemon-incoming", test.path])
    try #require(created.status == 0, "\(created.stdout)\(created.stderr)")
    let waiting = try fixture.server.engine.cupsJobs(
      named: PrintWorker.cupsJobName(claimed), queue: "daemon-incoming", server: rig.server)
    #expect(waiting.count == 1 && waiting[0].state.isActive, "\(waiting)")
    // The restart.
    let restarted = try ReceiptServer(configuration: fixture.server.configuration)
    try await running(restarted) {
      #expect(await fixture.wait(seconds: 60) { await job(fixture, jobs[0].id)?.state == .completed })
      #expect(rig.received(containing: jobs[0].id).count == 1, "printed once")
      let history = try fixture.server.engine.cupsJobs(
        named: PrintWorker.cupsJobName(claimed), queue: "daemon-incoming", server: rig.server)
      #expect(
        history.map(\.state) == [.canceled, .completed], "the empty one canceled, the new one printed: \(history)")
    }
  }

  @Test func printersShowTheirCUPSState() async throws {
    let rig = try PrintRig.get()
    try rig.addQueue("daemon-state")
    try stopQueue(rig, "daemon-state", reason: "cover open")
    let fixture = try fixture(rig, queue: "daemon-state")
    try await fixture.server.application().test(.router) { client in
      try await client.execute(uri: "/v1/printers", method: .get) { response in
        let object = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
        let printers = object?["printers"] as? [[String: Any]] ?? []
        let counter = printers.first { $0["name"] as? String == "counter" }
        #expect(counter?["state"] as? String == "stopped")
        #expect((counter?["reasons"] as? [String])?.contains("cover open") == true, "\(String(describing: counter))")
        #expect(printers.first { $0["name"] as? String == "archive" }?["state"] as? String == "idle")
      }
    }
  }

  @Test func aStopLeavesAHeldJobToTheNextStartWhichPrintsItOnce() async throws {
    let rig = try PrintRig.get()
    try rig.addQueue("daemon-stop")
    try stopQueue(rig, "daemon-stop")
    let fixture = try ServerFixture(
      extraPrinters: [PrinterConfig(name: "counter", target: .cups(queue: "daemon-stop", server: rig.server))]
    ) { $0.shutdownGrace = 1 }
    let jobs = try await submit(fixture, count: 1)
    try await fixture.server.start()
    #expect(await fixture.wait { await job(fixture, jobs[0].id)?.printerState?.contains("printer-stopped") == true })
    let started = Date()
    await fixture.server.stop()  // the job cannot finish: the stop waits its grace, then leaves it
    // Bounded by the grace (1 s), not by the job: a stop that waited for the job would never end
    // (the queue stays stopped); 10 s more is room for a loaded machine, not a speed target.
    #expect(Date().timeIntervalSince(started) < 1 + 10, "the stop is bounded by the grace period")
    #expect(await job(fixture, jobs[0].id)?.state == .printing, "left for reconciliation")
    try rig.cupsTool("/usr/sbin/cupsenable", ["daemon-stop"])
    let restarted = try ReceiptServer(configuration: fixture.server.configuration)
    try await running(restarted) {
      #expect(await fixture.wait(seconds: 60) { await job(fixture, jobs[0].id)?.state == .completed })
      #expect(rig.received(containing: jobs[0].id).count == 1, "printed once")
    }
  }
}

/// A rig step that did not take.
struct RigFailure: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
