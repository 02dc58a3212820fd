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
  static func fixture(_ simulator: ThermalPrinterSimulator, model: String = "epson-tm-t88v") throws -> ServerFixture {
    try ServerFixture(extraPrinters: [
      PrinterConfig(
        name: "counter", target: .socket("socket://127.0.0.1:\(simulator.port)"), model: try PrinterModel.named(model))
    ])
  }

  static func submit(_ fixture: ServerFixture, count: Int) throws -> [Job] {
    try (0..<count).map { _ in
      try fixture.server.store.submit(
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

  @Test func aJobIsCompletedOnlyWhenThePrinterConfirmsIt() throws {
    let simulator = try ThermalPrinterSimulator(model: .epsonTMT88)
    simulator.printSlowly(rowsPerSecond: 300)  // a receipt takes about five seconds
    let fixture = try Self.fixture(simulator)
    let job = try #require(try Self.submit(fixture, count: 1).first)
    try fixture.server.start()
    defer { fixture.server.stop() }
    #expect(fixture.wait(seconds: 20) { simulator.pages.first.map { $0.rows.count > 100 } ?? false })
    let printing = try #require(try fixture.server.store.job(job.id))
    #expect(printing.state == .printing, "sent and still printing: \(printing.state)")
    #expect(printing.sentAt != nil && printing.processID?.count == 4)
    #expect(try fixture.wait(seconds: 30) { try fixture.server.store.job(job.id)?.state == .completed })
    let done = try #require(try fixture.server.store.job(job.id))
    #expect(simulator.confirmedProcessIDs == [try #require(done.processID)], "completed with the printer's answer")
    #expect(simulator.pages.first?.cut != nil && done.interruptions == 0)
  }

  @Test func paperOutMidReceiptHoldsTheQueueAndReprintsTheInterruptedOneOnce() throws {
    let simulator = try ThermalPrinterSimulator(model: .epsonTMT88)
    simulator.runOutOfPaper(afterRows: 400)
    let fixture = try Self.fixture(simulator)
    let jobs = try Self.submit(fixture, count: 3)
    try fixture.server.start()
    defer { fixture.server.stop() }
    // Out of paper in the first receipt: the printer shows it, the queue holds, nothing is lost.
    #expect(
      try fixture.wait(seconds: 30) {
        try fixture.server.printerResponses().first { $0.name == "counter" }?.reasons.contains("media-empty") == true
      })
    // The worker sees it too (its own status watch, then the buffer clear): the job goes back.
    #expect(
      try fixture.wait(seconds: 30) {
        let first = try fixture.server.store.job(jobs[0].id)
        return first?.state == .queued && first?.error?.contains("out of paper") == true
      })
    #expect(simulator.bufferClears == 1 && simulator.confirmedProcessIDs.isEmpty)
    Thread.sleep(forTimeInterval: 3)
    #expect(simulator.pages.count == 1 && simulator.pages[0].cut == "paper-out", "held: nothing more was printed")
    #expect(try jobs.dropFirst().allSatisfy { try fixture.server.store.job($0.id)?.state == .queued })
    // New paper: the interrupted receipt once more, then the others, in order.
    simulator.set(paperEnd: false)
    #expect(
      try fixture.wait(seconds: 60) { try jobs.allSatisfy { try fixture.server.store.job($0.id)?.state == .completed } }
    )
    let done = try jobs.map { try #require(try fixture.server.store.job($0.id)) }
    #expect(done.map(\.interruptions) == [1, 0, 0])
    #expect(simulator.confirmedProcessIDs == done.map { $0.processID! }, "each confirmed once, in order")
    #expect(simulator.pages.count == 4 && simulator.pages.dropFirst().allSatisfy { $0.cut == "partial" })
    #expect(try Self.archivedText(fixture, done[0]).contains("REPRINT"), "the reprint is marked")
    #expect(try !Self.archivedText(fixture, done[1]).contains("REPRINT"))
  }

  @Test func aConnectionLostBeforeTheConfirmationLeavesTheJobRetrying() throws {
    let simulator = try ThermalPrinterSimulator(model: .generic203())
    simulator.disconnect(afterBytes: 3000)
    let fixture = try Self.fixture(simulator, model: "epson-tm-t20iii")
    let job = try #require(try Self.submit(fixture, count: 1).first)
    try fixture.server.start()
    defer { fixture.server.stop() }
    // Dropped mid-receipt: not completed; tried again; the second print is confirmed, marked.
    #expect(try fixture.wait(seconds: 30) { try fixture.server.store.job(job.id)?.state == .completed })
    let done = try #require(try fixture.server.store.job(job.id))
    #expect(
      done.attempts == 2 && done.interruptions == 1, "attempts \(done.attempts), interruptions \(done.interruptions)")
    #expect(simulator.confirmedProcessIDs == [done.processID!])
    #expect(try Self.archivedText(fixture, done).contains("REPRINT"))
  }

  @Test func aJobSentBeforeACrashPrintsAgainMarkedAsAReprint() throws {
    let simulator = try ThermalPrinterSimulator(model: .epsonTMT88)
    let fixture = try Self.fixture(simulator)
    let job = try #require(try Self.submit(fixture, count: 1).first)
    // The state a crash leaves: claimed and recorded as sent, never completed.
    _ = try fixture.server.store.claimNext(printer: "counter", now: Date())
    _ = try fixture.server.store.markSent(job.id, processID: "0000", now: Date())
    try fixture.server.start()
    defer { fixture.server.stop() }
    #expect(try fixture.wait(seconds: 30) { try fixture.server.store.job(job.id)?.state == .completed })
    let done = try #require(try fixture.server.store.job(job.id))
    #expect(done.interruptions == 1 && done.processID != "0000")
    #expect(try Self.archivedText(fixture, done).contains("REPRINT"))
  }

  @Test func aStarPrinterIsNeverSentESCPOSStatusRequests() throws {
    // Star raster printers do not speak DLE EOT: asked, they would take it for data.
    let simulator = try ThermalPrinterSimulator(model: .generic203())
    let fixture = try Self.fixture(simulator, model: "star-tsp143iv")
    let job = try #require(try Self.submit(fixture, count: 1).first)
    try fixture.server.start()
    defer { fixture.server.stop() }
    #expect(try fixture.wait(seconds: 30) { try fixture.server.store.job(job.id)?.state == .completed })
    let counter = try #require(try fixture.server.printerResponses().first { $0.name == "counter" })
    #expect(counter.state == "unknown")
    // Unconfirmed, the job is complete once the bytes are sent; the printer finishes its page after.
    #expect(fixture.wait(seconds: 10) { simulator.pages.first?.cut == "partial" }, "the receipt printed and was cut")
    #expect(simulator.statusRequestCount == 0)
    let done = try #require(try fixture.server.store.job(job.id))
    #expect(done.processID == nil && done.sentAt != nil, "sent, not confirmed: the model cannot")
  }
}
