import Foundation
import ReceiptKit
import Testing

@testable import ReceiptServer

/// A job an IPP client created without its document (Create-Job) waits outside its printer's
/// queue for `ippHeldTimeout` (60 s, IPP's `multiple-operation-time-out`) and then fails
/// (`multiple-operation-time-out-action` abort-job).
@Suite struct IPPHeldJobTests {
  @Test func aHeldJobWithoutItsDocumentFailsAfterTheTimeOut() async throws {
    let fixture = try ServerFixture()
    try await fixture.running {
      var request = JobRequest(printer: "archive", template: "", data: Data())
      request.held = true
      let late = try await fixture.server.store.accept(request, idempotencyKey: nil).job
      // From the job's own creation time, not the clock after `accept` returned (which may be
      // seconds later on a loaded machine or under ThreadSanitizer).
      let now = late.createdAt.addingTimeInterval(TimeInterval(IPPFront.heldTimeout) + 1)
      #expect(
        await fixture.server.ipp.abandonLateHeldJobs(now: now.addingTimeInterval(-2)) == 0, "within 60 s: waiting")
      #expect(await fixture.server.ipp.abandonLateHeldJobs(now: now) >= 1)
      let failed = try #require(try await fixture.server.store.job(late.id))
      #expect(failed.state == .failed && failed.error?.contains("no document arrived within 60 s") == true)
    }
  }
}

/// Round 4 of hostile input, at the store: sweeps find every job they are for, lists never load
/// documents, and a finished document job's document goes after `documentDays`.
@Suite struct QueueSweepTests {
  /// 600 held jobs (Create-Job at 12/s for under a minute): the sweep once read only the 500
  /// newest and never reached the oldest 100, so held jobs grew without bound.
  @Test(arguments: StoreKind.allCases) func everyLateHeldJobFailsNotOnlyTheNewest(store: StoreKind) async throws {
    let fixture = try ServerFixture(store: store)
    try await fixture.running {
      var request = JobRequest(printer: "archive", template: "", data: Data())
      request.held = true
      var last: Job?
      for _ in 0..<600 { last = try await fixture.server.store.accept(request, idempotencyKey: nil).job }
      let now = try #require(last).createdAt.addingTimeInterval(TimeInterval(IPPFront.heldTimeout) + 1)
      #expect(await fixture.server.ipp.abandonLateHeldJobs(now: now) == 600)
      #expect(try await fixture.server.store.jobs(state: .held, printer: nil, limit: 500, before: nil).isEmpty)
      #expect(try await fixture.server.store.jobs(state: .failed, printer: nil, limit: 500, before: nil).count == 500)
    }
  }

  /// A list (Get-Jobs, `GET /v1/jobs`) reads no document: 20 failed 30 MiB jobs once cost every
  /// Get-Jobs 760 MB. The job read alone still has its bytes.
  @Test(arguments: StoreKind.allCases) func listsDoNotLoadDocuments(store: StoreKind) async throws {
    let fixture = try ServerFixture(store: store)
    try await fixture.running {
      var request = JobRequest(printer: "archive", template: "", data: Data(repeating: 0x25, count: 1 << 20))
      request.documentFormat = .pdf
      request.held = true  // stays out of the printer's queue
      let job = try await fixture.server.store.accept(request, idempotencyKey: nil).job
      let listed = try await fixture.server.store.jobs(state: nil, printer: nil, limit: 10, before: nil)
      #expect(listed.map(\.id) == [job.id])
      #expect(listed.allSatisfy { $0.data.isEmpty }, "a list carries no document")
      #expect(try await fixture.server.store.job(job.id)?.data.count == 1 << 20, "one job read whole has it")
      let swept = try await fixture.server.store.sweepable(.heldSince(Date().addingTimeInterval(60)), limit: 10)
      #expect(swept.map(\.id) == [job.id] && swept.allSatisfy { $0.data.isEmpty })
    }
  }

  /// `documentDays`: a finished document job loses its document (not its record) that many days
  /// after it ended; it then cannot be retried or reprinted, and says why. Orders keep theirs.
  @Test(arguments: StoreKind.allCases) func finishedDocumentsAreRemovedAfterTheirRetention(store: StoreKind)
    async throws
  {
    let fixture = try ServerFixture(store: store) { $0.documentDays = 2 }
    try await fixture.running { try await retention(fixture) }
  }

  private func retention(_ fixture: ServerFixture) async throws {
    let store = fixture.server.store
    var request = JobRequest(printer: "archive", template: "", data: Data("%PDF-1.4 not really".utf8))
    request.documentFormat = .pdf
    request.held = true
    let document = try await store.accept(request, idempotencyKey: nil).job
    let order = try await store.accept(
      {
        var r = JobRequest(printer: "archive", template: "receipt", data: Data("{}".utf8)); r.held = true; return r
      }(),
      idempotencyKey: nil
    ).job
    for id in [document.id, order.id] { _ = try await store.abandon(id, reason: "test") }
    let ended = try #require(try await store.job(document.id)).updatedAt
    #expect(
      await fixture.server.workers.removeOldDocuments(now: ended.addingTimeInterval(86_400)) == 0, "one day: kept")
    #expect(await fixture.server.workers.removeOldDocuments(now: ended.addingTimeInterval(2 * 86_400 + 1)) == 1)
    let removed = try #require(try await store.job(document.id))
    #expect(removed.data.isEmpty && removed.state == .failed && removed.error == "test", "the record stays")
    #expect(try await store.job(order.id)?.data == Data("{}".utf8), "an order's data is not a document")
    #expect(try await store.retry(document.id)?.state == .failed, "nothing to print: not retried")
    #expect(try await store.retry(order.id)?.state == .queued)
  }
}
