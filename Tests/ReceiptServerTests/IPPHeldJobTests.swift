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
      let now = late.createdAt.addingTimeInterval(TimeInterval(ReceiptServer.ippHeldTimeout) + 1)
      #expect(await fixture.server.abandonLateHeldJobs(now: now.addingTimeInterval(-2)) == 0, "within 60 s: waiting")
      #expect(await fixture.server.abandonLateHeldJobs(now: now) >= 1)
      let failed = try #require(try await fixture.server.store.job(late.id))
      #expect(failed.state == .failed && failed.error?.contains("no document arrived within 60 s") == true)
    }
  }
}
