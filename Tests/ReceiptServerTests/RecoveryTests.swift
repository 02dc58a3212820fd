import Foundation
import ReceiptKit
import ReceiptTestSupport
import Testing

@testable import ReceiptServer

/// What the README promises about failures without CUPS: backoff, a printer that comes back,
/// cupsd out of reach, socket printers after a crash, temporary files of the directory printer.
@Suite struct RecoveryTests {
  func submit(_ fixture: ServerFixture, printer: String) async throws -> Job {
    try await fixture.server.store.submit(
      JobRequest(printer: printer, template: "receipt", data: Data(ServerFixture.order.utf8)), idempotencyKey: nil,
      now: Date()
    ).job
  }

  @Test func backoffDoublesFromHalfASecondToAMinuteWithJitter() {
    for attempt in 1...12 {
      let base = min(60, 0.5 * pow(2, Double(attempt - 1)))
      #expect(Job.backoff(attempt: attempt) == base)
      #expect(Job.backoff(attempt: attempt, jitter: 0.75) == base * 0.75)
      #expect(Job.backoff(attempt: attempt, jitter: 1.25) == base * 1.25)
    }
    #expect(Job.backoff(attempt: 10_000) == 60, "no overflow however many attempts")
  }

  /// Where a failed attempt takes a job is the queue's rule: failed for good when permanent, dead
  /// at the last attempt, else queued again after the backoff.
  @Test func aFailedAttemptEndsAsTheRuleSays() {
    var job = Job(
      JobRequest(printer: "p", template: "t", data: Data()), id: "x", sequence: 1, idempotencyKey: nil, orderID: nil,
      now: Date())
    let now = Date()
    job.attempts = 3
    #expect(job.afterFailedAttempt(permanent: true, maxAttempts: 8, now: now, jitter: 1) == (.failed, nil))
    #expect(job.afterFailedAttempt(permanent: false, maxAttempts: 3, now: now, jitter: 1) == (.dead, nil))
    let next = job.afterFailedAttempt(permanent: false, maxAttempts: 8, now: now, jitter: 1)
    #expect(next.state == .queued && next.retryAt == now.addingTimeInterval(2))
  }

  @Test(arguments: StoreKind.allCases) func aSocketPrinterThatComesBackGetsTheJobAfterRetries(store: StoreKind)
    async throws
  {
    // The port is free now; nothing listens until the listener below starts.
    let port = try PrintRig.freePortForTests()
    let fixture = try ServerFixture(
      extraPrinters: [PrinterConfig(name: "kitchen", target: .socket(host: "127.0.0.1", port: Int(port)))],
      maxAttempts: 20,
      store: store)
    let job = try await submit(fixture, printer: "kitchen")
    try await fixture.running {
      #expect(
        await fixture.wait { (try? await fixture.server.store.job(job.id))?.attempts ?? 0 >= 2 }, "refused, retried")
      let failed = try #require(try await fixture.server.store.job(job.id))
      #expect(failed.state != .completed && failed.error?.contains("cannot connect") == true, "\(failed)")
      let printer = try SocketListener(port: port)
      #expect(await fixture.wait(seconds: 30) { (try? await fixture.server.store.job(job.id))?.state == .completed })
      #expect(printer.connection(0)?.prefix(2) == Data([0x1B, 0x40]), "the printer got the ESC/POS")
    }
  }

  @Test(arguments: StoreKind.allCases) func cupsOutOfReachSendsNothingAndRetries(store: StoreKind) async throws {
    let port = try PrintRig.freePortForTests()
    let fixture = try ServerFixture(
      extraPrinters: [PrinterConfig(name: "counter", target: .cups(queue: "roll", server: "127.0.0.1:\(port)"))],
      store: store)
    let job = try await submit(fixture, printer: "counter")
    // Interrupted on its first attempt (claimed, then the daemon died).
    _ = try await fixture.server.store.own(printer: "counter", maxCrashes: 3)  // this daemon drives it
    _ = try await fixture.server.store.claimNext(printer: "counter", now: Date())
    let restarted = try await fixture.crashAndRestart()
    try await running(restarted) {
      #expect(
        await fixture.wait {
          (try? await restarted.store.job(job.id))?.error?.contains("cannot reach the CUPS server") == true
        })
      // Retried, not failed: queued again for a later attempt (the condition waited for, not a
      // state read at one moment).
      #expect(
        await fixture.wait {
          guard let state = try? await restarted.store.job(job.id) else { return false }
          return state.state == .queued && state.attempts >= 1
            && state.notBefore > state.updatedAt.addingTimeInterval(-1)
            && state.error?.contains("cannot reach the CUPS server") == true
        }, "queued for a retry")
      let state = try #require(try await restarted.store.job(job.id))
      #expect(state.cupsJobID == nil && state.sentAt == nil, "nothing was sent")
    }
  }

  @Test(arguments: StoreKind.allCases) func aSocketJobInterruptedByACrashIsSentAgain(store: StoreKind) async throws {
    let printer = try SocketListener()
    let fixture = try ServerFixture(
      extraPrinters: [PrinterConfig(name: "kitchen", target: .socket(host: "127.0.0.1", port: Int(printer.port)))],
      store: store)
    let job = try await submit(fixture, printer: "kitchen")
    _ = try await fixture.server.store.own(printer: "kitchen", maxCrashes: 3)  // this daemon drives it
    let claimed = try #require(try await fixture.server.store.claimNext(printer: "kitchen", now: Date()))
    #expect(claimed.id == job.id)
    // Recorded as sent, and the first bytes reached the printer; then the crash.
    try await fixture.server.store.recordSent(claimed.drawnAsSent(processID: nil))
    let connection = try Loopback.connect(port: printer.port)
    _ = Array("\u{1B}@".utf8).withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
    close(connection)
    #expect(await eventually(seconds: 10) { printer.count == 1 })
    let restarted = try await fixture.crashAndRestart()
    try await running(restarted) {
      #expect(await fixture.wait { (try? await restarted.store.job(job.id))?.state == .completed })
      // A socket printer cannot be asked whether it printed: at least once, so sent again, and
      // counted as an interruption (the receipt says it is a reprint), not as a crash.
      #expect(printer.count == 2, "sent again")
      let done = try #require(try await restarted.store.job(job.id))
      #expect(
        done.interruptions == 1 && done.crashes == 0, "interruptions \(done.interruptions), crashes \(done.crashes)")
    }
  }

  @Test(arguments: StoreKind.allCases) func aTemporaryFileLeftByACrashIsNotAReceipt(store: StoreKind) async throws {
    let fixture = try ServerFixture(store: store)
    let job = try await submit(fixture, printer: "archive")
    _ = try await fixture.server.store.own(printer: "archive", maxCrashes: 3)  // this daemon drives it
    _ = try await fixture.server.store.claimNext(printer: "archive", now: Date())
    // The crash came while the PDF was being written: a temporary file, never renamed.
    let partial = fixture.archive.appendingPathComponent(".\(PrintWorker.fileName(job)).Ab12Cd")
    try Data("%PDF-1.5 torn".utf8).write(to: partial)
    let restarted = try await fixture.crashAndRestart()
    try await running(restarted) {
      #expect(await fixture.wait { (try? await restarted.store.job(job.id))?.state == .completed })
      #expect(fixture.printed == [PrintWorker.fileName(job)], "printed once, whole")
      let text = try Tool.run("pdftotext", [fixture.archive.appendingPathComponent(fixture.printed[0]).path, "-"])
      #expect(text.stdout.contains("Corner Café"))
    }
  }
}
