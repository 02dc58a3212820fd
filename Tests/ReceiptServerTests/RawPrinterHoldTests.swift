import Foundation
import ReceiptKit
import ReceiptTestSupport
import Testing

@testable import ReceiptServer

/// A raw printer out of paper holds its queue: nothing is sent into it and no attempt is used
/// up, and `GET /v1/printers` shows it stopped with `media-empty`; refilled, it prints every job
/// once, in order. An ESC/POS printer (no model: asked with `DLE EOT 1…4`) and a Star printer
/// (`star-tsp143iv`: asked with `ESC ACK SOH`, never `DLE EOT`, which the Star simulator refuses
/// as a real one would print it).
@Suite struct RawPrinterHoldTests {
  @Test(arguments: [false, true]) func paperOutHoldsTheQueueAndRefillResumesInOrder(star: Bool) async throws {
    let simulator = try ThermalPrinterSimulator(model: star ? .starTSP100 : .generic203())
    simulator.set(paperEnd: true)
    let fixture = try ServerFixture(
      extraPrinters: [
        PrinterConfig(
          name: "counter", target: .socket(host: "127.0.0.1", port: Int(simulator.port)),
          model: star ? try PrinterModel.named("star-tsp143iv") : nil)
      ])
    // Status queries answered: a Star printer answers one request, an ESC/POS printer four.
    let queries = { star ? simulator.starStatusRequestCount : simulator.statusRequestCount / 4 }
    let jobs = try await (0..<3).asyncMap { _ in
      try await fixture.server.store.submit(
        JobRequest(printer: "counter", template: "receipt", data: Data(ServerFixture.order.utf8)),
        idempotencyKey: nil, now: Date()
      ).job
    }
    try await fixture.running {
      // Held: the printer was asked, nothing was sent, nothing was claimed.
      #expect(await fixture.wait(seconds: 10) { queries() >= 2 }, "asked again while held")
      #expect(simulator.jobs.isEmpty)
      if star { #expect(simulator.statusRequestCount == 0, "never asked the ESC/POS way") }
      for job in jobs {
        let stored = try #require(try await fixture.server.store.job(job.id))
        #expect(stored.state == .queued && stored.attempts == 0, "\(stored.state) after \(stored.attempts) attempts")
      }
      let held = try #require(try await fixture.server.probe.responses().first { $0.name == "counter" })
      #expect(held.state == "stopped" && held.reasons.contains("media-empty"), "\(held.state) \(held.reasons)")
      // Refilled: every job prints once, in order.
      simulator.set(paperEnd: false)
      #expect(
        try await fixture.wait(seconds: 30) {
          try await jobs.asyncAllSatisfy { try await fixture.server.store.job($0.id)?.state == .completed }
        })
      // The daemon marks a job done once its bytes are written and the connection closed; the
      // simulator counts it when it has read them to the end, which can be later (seen under
      // ThreadSanitizer). Then every job must have been printed exactly once.
      _ = await fixture.wait(seconds: 10) { simulator.jobs.count >= 3 }
      #expect(simulator.jobs.count == 3 && simulator.refusedCommands.isEmpty, "\(simulator.refusedCommands)")
      let completed = try await jobs.asyncMap { try #require(try await fixture.server.store.job($0.id)) }
      #expect(completed.allSatisfy { $0.attempts == 1 })
      #expect(zip(completed, completed.dropFirst()).allSatisfy { $0.updatedAt <= $1.updatedAt }, "in order")
    }
  }
}
