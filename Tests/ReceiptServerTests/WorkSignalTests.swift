import Foundation
import ReceiptKit
@_spi(Internals) import ReceiptModel
import ReceiptTestSupport
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
    let seen = Locked<[String]>([])
    store.observeWork { printer in seen.withLock { $0.append(printer) } }
    /// What was reported since the last call. SQLite reports before the change returns;
    /// PostgreSQL's notifications arrive after the commit, on the listener's connection, in
    /// commit order: a change for another printer (a marker) is made, and everything reported
    /// before the marker arrives is the answer — a second report of one change would be among it.
    var markers = 0
    func take() async throws -> [String] {
      if kind == .postgres {
        markers += 1
        let marker = "marker-\(markers)"
        _ = try await store.submit(
          JobRequest(printer: marker, template: "receipt", data: Data("{}".utf8)), idempotencyKey: nil, now: Date())
        #expect(await eventually(seconds: 30, poll: 0.01) { seen.withLock { $0.contains(marker) } }, "\(marker)")
      }
      return seen.withLock { names in
        defer { names = [] }
        return Array(names.prefix { !$0.hasPrefix("marker-") })
      }
    }
    let order = Data(#"{"items": [{"name": "Tea", "price": "2.50"}], "id": 820982911946154508}"#.utf8)
    let request = JobRequest(printer: "archive", template: "receipt", data: order)

    let first = try await store.submit(request, idempotencyKey: nil, now: Date()).job
    #expect(try await take() == ["archive"], "submit")
    let (accepted, created) = try await store.accept(request, idempotencyKey: "k")
    let reported = try await take()
    #expect(created && reported == ["archive"], "accept")
    _ = try await store.accept(request, idempotencyKey: "k")
    #expect(try await take().isEmpty, "a known key adds no work")

    // The head fails for good, then is retried by hand.
    let claimed = try #require(try await store.claimNext(printer: "archive", now: Date()))
    #expect(claimed.id == first.id)
    try await store.fail(first.id, error: "bad", retryAt: nil, state: .failed, now: Date())
    _ = try await take()
    _ = try await store.retry(first.id, now: Date())
    #expect(try await take() == ["archive"], "retry")

    // A head waiting for its retry is due then; cancelling it frees the job behind at once.
    _ = try await store.claimNext(printer: "archive", now: Date())
    let due = Date().addingTimeInterval(30)
    try await store.fail(first.id, error: "printer away", retryAt: due, state: .queued, now: Date())
    #expect(abs(try #require(try await store.nextDue(printer: "archive")).timeIntervalSince(due)) < 0.01)
    _ = try await take()
    _ = try await store.cancel(first.id, now: Date())
    #expect(try await take() == ["archive"], "cancel of the head")
    #expect(try await store.nextDue(printer: "archive") != nil, "the accepted job is the head now")

    // A job left printing and requeued after reconciliation.
    let head = try #require(try await store.claimNext(printer: "archive", now: Date()))
    #expect(head.id == accepted.id)
    #expect(try await store.nextDue(printer: "archive") == nil, "nothing queued at the head while it prints")
    try await store.requeue(head.id, now: Date())
    #expect(try await take() == ["archive"], "requeue")
  }
}
