import Foundation
import ReceiptKit
import ReceiptTestSupport
import Testing

@testable import ReceiptServer

/// Workers print each job once, in order; crashes are reconciled before anything is resent.
@Suite struct WorkerTests {
  func submit(_ fixture: ServerFixture, count: Int, printer: String = "archive", template: String = "receipt")
    async throws
    -> [Job]
  {
    try await (0..<count).asyncMap { _ in
      try await fixture.server.store.submit(
        JobRequest(printer: printer, template: template, data: Data(ServerFixture.order.utf8)), idempotencyKey: nil,
        now: Date()
      ).job
    }
  }

  @Test(arguments: StoreKind.allCases) func jobsPrintOnceInSubmissionOrder(store: StoreKind) async throws {
    let fixture = try ServerFixture(store: store)
    let jobs = try await submit(fixture, count: 12)
    try await fixture.running {
      #expect(await fixture.wait { fixture.printed.count == 12 })
      #expect(fixture.printed == jobs.map(PrintWorker.fileName))
      #expect(
        try await fixture.wait {
          try await fixture.server.store.jobs(state: .completed, printer: nil, limit: 50, before: nil).count == 12
        })
      // Each file is a real receipt.
      let text = try Tool.run("pdftotext", [fixture.archive.appendingPathComponent(fixture.printed[0]).path, "-"])
        .stdout
      #expect(text.contains("Corner Café"))
    }
  }

  @Test func aCrashMidPrintIsReconciledNotReprinted() async throws {
    let fixture = try ServerFixture()
    let jobs = try await submit(fixture, count: 3)
    // Simulate a crash: job 0 printed (file written) but never marked; job 1 claimed, not printed.
    let store = fixture.server.store
    _ = try await store.own(printer: "archive", maxCrashes: 3)  // this daemon drives it
    let first = try #require(try await store.claimNext(printer: "archive", now: Date()))
    try Data("%PDF".utf8).write(to: fixture.archive.appendingPathComponent(PrintWorker.fileName(first)))
    try await store.complete(first.id, cupsJobID: nil, now: Date())  // (worker stepped on: reset below)
    try await store.fail(first.id, error: "", retryAt: Date(), state: .queued, now: Date())
    _ = try await store.claimNext(printer: "archive", now: Date())  // job 0 back to printing, file exists
    #expect(try await store.interrupted().map(\.id) == [jobs[0].id])
    // A new server on the same database (the restart).
    let restarted = try ReceiptServer(configuration: fixture.server.configuration)
    try await restarted.start()
    #expect(await fixture.wait { fixture.printed.count == 3 })
    #expect(
      try await fixture.wait {
        try await restarted.store.jobs(state: .completed, printer: nil, limit: 10, before: nil).count == 3
      })
    await restarted.stop()
    let firstFile = try Data(contentsOf: fixture.archive.appendingPathComponent(PrintWorker.fileName(jobs[0])))
    #expect(firstFile == Data("%PDF".utf8), "job 0 was not printed again")
  }

  @Test(arguments: StoreKind.allCases) func dataErrorsFailAtOnceAndTransientErrorsRetryThenDie(store: StoreKind)
    async throws
  {
    // A socket printer nobody listens on: transient; two attempts make it dead.
    let port = try PrintRig.freePortForTests()
    let fixture = try ServerFixture(
      extraPrinters: [PrinterConfig(name: "offline", target: .socket(host: "127.0.0.1", port: Int(port)))],
      maxAttempts: 2,
      store: store)
    let bad = try await fixture.server.store.submit(
      JobRequest(
        printer: "archive", template: "receipt", data: Data(#"{"number": "1", "items": "not an array"}"#.utf8)),
      idempotencyKey: nil, now: Date()
    ).job
    let offline = try await submit(fixture, count: 1, printer: "offline")[0]
    let after = try await submit(fixture, count: 1)[0]
    try await fixture.running {
      #expect(try await fixture.wait { try await fixture.server.store.job(bad.id)?.state == .failed })
      #expect(try await fixture.server.store.job(bad.id)?.error?.contains("not an array") == true)
      #expect(try await fixture.server.store.job(bad.id)?.attempts == 1)
      // The archive queue goes on after the failed job.
      #expect(try await fixture.wait { try await fixture.server.store.job(after.id)?.state == .completed })
      #expect(try await fixture.wait(seconds: 10) { try await fixture.server.store.job(offline.id)?.state == .dead })
      let dead = try #require(try await fixture.server.store.job(offline.id))
      #expect(dead.attempts == 2 && dead.error?.contains("cannot connect") == true)
    }
  }
}
