import Foundation
import ReceiptKit
import ReceiptTestSupport
import Testing

@testable import ReceiptServer

/// Workers print each job once, in order; crashes are reconciled before anything is resent.
@Suite struct WorkerTests {
  func submit(_ fixture: ServerFixture, count: Int, printer: String = "archive", template: String = "receipt") throws
    -> [Job]
  {
    try (0..<count).map { _ in
      try fixture.server.store.submit(
        JobRequest(printer: printer, template: template, data: Data(ServerFixture.order.utf8)), idempotencyKey: nil,
        now: Date()
      ).job
    }
  }

  @Test(arguments: StoreKind.allCases) func jobsPrintOnceInSubmissionOrder(store: StoreKind) throws {
    let fixture = try ServerFixture(store: store)
    let jobs = try submit(fixture, count: 12)
    try fixture.server.start()
    defer { fixture.server.stop() }
    #expect(fixture.wait { fixture.printed.count == 12 })
    #expect(fixture.printed == jobs.map(PrintWorker.fileName))
    #expect(
      try fixture.wait {
        try fixture.server.store.jobs(state: .completed, printer: nil, limit: 50, before: nil).count == 12
      })
    // Each file is a real receipt.
    let text = try Tool.run("pdftotext", [fixture.archive.appendingPathComponent(fixture.printed[0]).path, "-"]).stdout
    #expect(text.contains("Corner Café"))
  }

  @Test func aCrashMidPrintIsReconciledNotReprinted() throws {
    let fixture = try ServerFixture()
    let jobs = try submit(fixture, count: 3)
    // Simulate a crash: job 0 printed (file written) but never marked; job 1 claimed, not printed.
    let store = fixture.server.store
    let first = try #require(try store.claimNext(printer: "archive", now: Date()))
    try Data("%PDF".utf8).write(to: fixture.archive.appendingPathComponent(PrintWorker.fileName(first)))
    try store.complete(first.id, cupsJobID: nil, now: Date())  // (worker stepped on: reset below)
    try store.fail(first.id, error: "", retryAt: Date(), state: .queued, now: Date())
    _ = try store.claimNext(printer: "archive", now: Date())  // job 0 back to printing, file exists
    #expect(try store.interrupted().map(\.id) == [jobs[0].id])
    // A new server on the same database (the restart).
    let restarted = try ReceiptServer(configuration: fixture.server.configuration)
    try restarted.start()
    defer { restarted.stop() }
    #expect(fixture.wait { fixture.printed.count == 3 })
    #expect(
      try fixture.wait { try restarted.store.jobs(state: .completed, printer: nil, limit: 10, before: nil).count == 3 })
    let firstFile = try Data(contentsOf: fixture.archive.appendingPathComponent(PrintWorker.fileName(jobs[0])))
    #expect(firstFile == Data("%PDF".utf8), "job 0 was not printed again")
  }

  @Test(arguments: StoreKind.allCases) func dataErrorsFailAtOnceAndTransientErrorsRetryThenDie(store: StoreKind) throws
  {
    // A socket printer nobody listens on: transient; two attempts make it dead.
    let port = try PrintRig.freePortForTests()
    let fixture = try ServerFixture(
      extraPrinters: [PrinterConfig(name: "offline", target: .socket("socket://127.0.0.1:\(port)"))], maxAttempts: 2,
      store: store)
    let bad = try fixture.server.store.submit(
      JobRequest(
        printer: "archive", template: "receipt", data: Data(#"{"number": "1", "items": "not an array"}"#.utf8)),
      idempotencyKey: nil, now: Date()
    ).job
    let offline = try submit(fixture, count: 1, printer: "offline")[0]
    let after = try submit(fixture, count: 1)[0]
    try fixture.server.start()
    defer { fixture.server.stop() }
    #expect(try fixture.wait { try fixture.server.store.job(bad.id)?.state == .failed })
    #expect(try fixture.server.store.job(bad.id)?.error?.contains("not an array") == true)
    #expect(try fixture.server.store.job(bad.id)?.attempts == 1)
    // The archive queue goes on after the failed job.
    #expect(try fixture.wait { try fixture.server.store.job(after.id)?.state == .completed })
    #expect(try fixture.wait(seconds: 10) { try fixture.server.store.job(offline.id)?.state == .dead })
    let dead = try #require(try fixture.server.store.job(offline.id))
    #expect(dead.attempts == 2 && dead.error?.contains("cannot connect") == true)
  }
}
