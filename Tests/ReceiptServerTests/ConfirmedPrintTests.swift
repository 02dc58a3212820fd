import Foundation
import ReceiptKit
import ReceiptTestSupport
import Testing

@testable import ReceiptServer

/// Raw printers whose model confirms prints (`GS ( H`), driven by the daemon against the thermal
/// printer simulator: a job is completed only when the printer says it printed; paper out
/// mid-receipt holds the queue, and after the refill the interrupted receipt prints once more,
/// marked REPRINT, then the rest in order; a connection lost before the answer leaves the job
/// retrying.
@Suite(.serialized) struct ConfirmedPrintTests {
  static func fixture(_ simulator: ThermalPrinterSimulator, model: String = "epson-tm-t88v", store: StoreKind = .sqlite)
    throws -> ServerFixture
  {
    try ServerFixture(
      extraPrinters: [
        PrinterConfig(
          name: "counter", target: .socket(host: "127.0.0.1", port: Int(simulator.port)),
          model: try PrinterModel.named(model)
        )
      ], store: store)
  }

  static func submit(_ fixture: ServerFixture, count: Int) async throws -> [Job] {
    try await (0..<count).asyncMap { _ in
      try await fixture.server.store.submit(
        JobRequest(printer: "counter", template: "receipt", data: Data(ServerFixture.order.utf8)),
        idempotencyKey: nil, now: Date()
      ).job
    }
  }

  /// The text of the PDF the daemon archived for a job (what was sent).
  static func archivedText(_ fixture: ServerFixture, _ job: Job) throws -> String {
    let directory = try #require(fixture.server.configuration.archiveDirectory)
    let file = directory.appendingPathComponent(ArchiveFile.name(job.id))
    return try Tool.run("pdftotext", [file.path, "-"]).stdout
  }

  @Test(arguments: StoreKind.allCases) func aJobIsCompletedOnlyWhenThePrinterConfirmsIt(store: StoreKind) async throws {
    let simulator = try ThermalPrinterSimulator(model: .epsonTMT88)
    simulator.printSlowly(rowsPerSecond: 300)  // a receipt takes about five seconds
    let fixture = try Self.fixture(simulator, store: store)
    let job = try #require(try await Self.submit(fixture, count: 1).first)
    try await fixture.running {
      #expect(await fixture.wait(seconds: 20) { simulator.pages.first.map { $0.rows.count > 100 } ?? false })
      let printing = try #require(try await fixture.server.store.job(job.id))
      #expect(printing.state == .printing, "sent and still printing: \(printing.state)")
      #expect(printing.sentAt != nil && printing.processID?.count == 4)
      #expect(try await fixture.wait(seconds: 30) { try await fixture.server.store.job(job.id)?.state == .completed })
      let done = try #require(try await fixture.server.store.job(job.id))
      #expect(simulator.confirmedProcessIDs == [try #require(done.processID)], "completed with the printer's answer")
      #expect(simulator.pages.first?.cut != nil && done.interruptions == 0)
    }
  }

  @Test(arguments: StoreKind.allCases) func paperOutMidReceiptHoldsTheQueueAndReprintsTheInterruptedOneOnce(
    store: StoreKind
  ) async throws {
    let simulator = try ThermalPrinterSimulator(model: .epsonTMT88)
    simulator.runOutOfPaper(afterRows: 400)
    let fixture = try Self.fixture(simulator, store: store)
    let jobs = try await Self.submit(fixture, count: 3)
    try await fixture.running {
      // Out of paper in the first receipt: the printer shows it, the queue holds, nothing is lost.
      #expect(
        try await fixture.wait(seconds: 30) {
          try await fixture.server.probe.responses().first { $0.name == "counter" }?.reasons.contains("media-empty")
            == true
        })
      // The worker sees it too (its own status watch, then the buffer clear): the job goes back.
      #expect(
        try await fixture.wait(seconds: 30) {
          let first = try await fixture.server.store.job(jobs[0].id)
          return first?.state == .queued && first?.error?.contains("out of paper") == true
        })
      #expect(simulator.bufferClears == 1 && simulator.confirmedProcessIDs.isEmpty)
      // The worker keeps asking the printer while it holds: two more status requests show it had
      // its chances to print, and printed nothing.
      let asked = simulator.statusRequestCount
      #expect(
        await eventually(seconds: 30) { simulator.statusRequestCount >= asked + 2 }, "the worker watches the printer")
      #expect(simulator.pages.count == 1 && simulator.pages[0].cut == "paper-out", "held: nothing more was printed")
      #expect(
        try await jobs.dropFirst().asyncFilter { try await fixture.server.store.job($0.id)?.state == .queued }.count
          == jobs.count - 1)
      // New paper: the interrupted receipt once more, then the others, in order.
      simulator.set(paperEnd: false)
      #expect(
        try await fixture.wait(seconds: 60) {
          try await jobs.asyncAllSatisfy { try await fixture.server.store.job($0.id)?.state == .completed }
        }
      )
      let done = try await jobs.asyncMap { try #require(try await fixture.server.store.job($0.id)) }
      #expect(done.map(\.interruptions) == [1, 0, 0])
      #expect(simulator.confirmedProcessIDs == done.map { $0.processID! }, "each confirmed once, in order")
      #expect(simulator.pages.count == 4 && simulator.pages.dropFirst().allSatisfy { $0.cut == "partial" })
      #expect(try Self.archivedText(fixture, done[0]).contains("REPRINT"), "the reprint is marked")
      #expect(try !Self.archivedText(fixture, done[1]).contains("REPRINT"))
    }
  }

  @Test(arguments: StoreKind.allCases) func aConnectionLostBeforeTheConfirmationLeavesTheJobRetrying(store: StoreKind)
    async throws
  {
    let simulator = try ThermalPrinterSimulator(model: .generic203())
    simulator.disconnect(afterBytes: 3000)
    let fixture = try Self.fixture(simulator, model: "epson-tm-t20iii", store: store)
    let job = try #require(try await Self.submit(fixture, count: 1).first)
    try await fixture.running {
      // Dropped mid-receipt: not completed; tried again; the second print is confirmed, marked.
      #expect(try await fixture.wait(seconds: 30) { try await fixture.server.store.job(job.id)?.state == .completed })
      let done = try #require(try await fixture.server.store.job(job.id))
      #expect(
        done.attempts == 2 && done.interruptions == 1, "attempts \(done.attempts), interruptions \(done.interruptions)")
      #expect(simulator.confirmedProcessIDs == [done.processID!])
      #expect(try Self.archivedText(fixture, done).contains("REPRINT"))
    }
  }

  @Test(arguments: StoreKind.allCases) func aJobSentBeforeACrashPrintsAgainMarkedAsAReprint(store: StoreKind)
    async throws
  {
    let simulator = try ThermalPrinterSimulator(model: .epsonTMT88)
    let fixture = try Self.fixture(simulator, store: store)
    let job = try #require(try await Self.submit(fixture, count: 1).first)
    // The state a crash leaves: claimed and recorded as sent, never completed.
    _ = try await fixture.server.store.own(printer: "counter", maxCrashes: 3)  // this daemon drives it
    let claimed = try #require(try await fixture.server.store.claimNext(printer: "counter", now: Date()))
    #expect(claimed.id == job.id)
    try await fixture.server.store.recordSent(claimed.drawnAsSent(processID: "0000"))
    // The crash and the restart: another daemon process on the same queue.
    let restarted = try await fixture.crashAndRestart()
    try await running(restarted) {
      #expect(try await fixture.wait(seconds: 30) { try await restarted.store.job(job.id)?.state == .completed })
      let done = try #require(try await restarted.store.job(job.id))
      #expect(done.interruptions == 1 && done.processID != "0000")
      #expect(try Self.archivedText(fixture, done).contains("REPRINT"))
    }
  }

  @Test func aStarPrinterIsAskedInStarsOwnProtocolNeverESCPOS() async throws {
    // Star raster printers do not speak DLE EOT: asked, they would take it for data (the Star
    // simulator refuses it and stops). They are asked with ESC ACK SOH.
    let simulator = try ThermalPrinterSimulator(model: .starTSP100)
    let fixture = try Self.fixture(simulator, model: "star-tsp143iv")
    let job = try #require(try await Self.submit(fixture, count: 1).first)
    try await fixture.running {
      #expect(try await fixture.wait(seconds: 30) { try await fixture.server.store.job(job.id)?.state == .completed })
      let counter = try #require(try await fixture.server.probe.responses().first { $0.name == "counter" })
      #expect(counter.state == "idle", "\(counter.state) \(counter.reasons)")
      #expect(simulator.starStatusRequestCount > 0 && simulator.refusedCommands.isEmpty, "\(simulator.refusedCommands)")
      // Unconfirmed, the job is complete once the bytes are sent; the printer finishes its page after.
      #expect(
        await fixture.wait(seconds: 10) { simulator.pages.first?.cut == "partial" }, "the receipt printed and was cut")
      #expect(simulator.statusRequestCount == 0)
      let done = try #require(try await fixture.server.store.job(job.id))
      #expect(done.processID == nil && done.sentAt != nil, "sent, not confirmed: the model cannot")
    }
  }
}
