import Foundation
import ReceiptKit
import ReceiptTestSupport
import Synchronization
import Testing

@testable import ReceiptServer

/// Idle workers sleep until the store says a printer has work: every change that can give a
/// printer work must say so (a missing one leaves a job unprinted until some other job comes),
/// and a head waiting for its retry says when it is due.
@Suite struct WorkSignalTests {
  @Test(arguments: StoreKind.allCases) func everyChangeThatGivesAPrinterWorkIsReported(kind: StoreKind) async throws {
    let fixture = try ServerFixture(store: kind)
    let store = fixture.server.store
    #expect(try await store.own(printer: "archive", maxCrashes: 3, now: Date()) == [], "claims need the printer")
    let seen = Mutex<[String]>([])
    store.observeWork { printer in seen.withLock { $0.append(printer) } }
    /// What was reported since the last call. SQLite reports before the change returns;
    /// PostgreSQL's notifications arrive after the commit, on the listener's thread: waited for
    /// (and a moment more, so a second report of one change would be seen).
    func take(within seconds: Double = 5) async -> [String] {
      if kind == .postgres {
        _ = await eventually(seconds: seconds, poll: 0.01) { !seen.withLock { $0.isEmpty } }
        try? await Task.sleep(for: .seconds(0.2))
      }
      return seen.withLock { names in
        defer { names = [] }
        return names
      }
    }
    let order = Data(#"{"items": [{"name": "Tea", "price": "2.50"}], "id": 820982911946154508}"#.utf8)
    let request = JobRequest(printer: "archive", template: "receipt", data: order)

    let first = try await store.submit(request, idempotencyKey: nil, now: Date()).job
    #expect(await take() == ["archive"], "submit")
    let (accepted, created) = try await store.accept(request, idempotencyKey: "k")
    let reported = await take()
    #expect(created && reported == ["archive"], "accept")
    _ = try await store.accept(request, idempotencyKey: "k")
    #expect(await take(within: 0.5).isEmpty, "a known key adds no work")

    // The head fails for good, then is retried by hand.
    let claimed = try #require(try await store.claimNext(printer: "archive", now: Date()))
    #expect(claimed.id == first.id)
    try await store.fail(first.id, error: "bad", retryAt: nil, state: .failed, now: Date())
    _ = await take(within: 0.5)
    _ = try await store.retry(first.id, now: Date())
    #expect(await take() == ["archive"], "retry")

    // A head waiting for its retry is due then; cancelling it frees the job behind at once.
    _ = try await store.claimNext(printer: "archive", now: Date())
    let due = Date().addingTimeInterval(30)
    try await store.fail(first.id, error: "printer away", retryAt: due, state: .queued, now: Date())
    #expect(abs(try #require(try await store.nextDue(printer: "archive")).timeIntervalSince(due)) < 0.01)
    _ = await take(within: 0.5)
    _ = try await store.cancel(first.id, now: Date())
    #expect(await take() == ["archive"], "cancel of the head")
    #expect(try await store.nextDue(printer: "archive") != nil, "the accepted job is the head now")

    // A job left printing and requeued after reconciliation.
    let head = try #require(try await store.claimNext(printer: "archive", now: Date()))
    #expect(head.id == accepted.id)
    #expect(try await store.nextDue(printer: "archive") == nil, "nothing queued at the head while it prints")
    try await store.requeue(head.id, now: Date())
    #expect(await take() == ["archive"], "requeue")
  }
}
