import Foundation
import ReceiptKit
@_spi(Internals) import ReceiptModel
import ReceiptTestSupport
import Testing

@testable import ReceiptServer

/// Every queue rule through each store: the same operations (`JobStore+Queue`) over SQLite and
/// PostgreSQL must give the same queue — FIFO claims, outcomes, idempotent submissions, orders all
/// or none, reprint numbers, failover, and crash recovery (which stage is blamed, clean stops).
/// A daemon's death is a store dropped without a clean stop; its restart, another store on the
/// same queue.
@Suite(.timeLimit(.minutes(3))) struct QueueContractTests {
  static let order = Data(#"{"items": [{"name": "Tea", "price": "2.50"}], "id": 820982911946154508}"#.utf8)

  func request(_ printer: String = "counter", fallback: String? = nil) -> JobRequest {
    var request = JobRequest(printer: printer, template: "receipt", data: Self.order)
    request.fallback = fallback
    return request
  }

  /// A fresh queue of `kind` and a store on it.
  func queue(_ kind: StoreKind) throws -> (database: String, store: any JobStore) {
    let database = try kind.database(in: Tool.temporaryDirectory())
    return (database, try kind.open(database))
  }

  /// The daemon of `store` dies (no clean stop: on PostgreSQL its sessions end, as the kernel
  /// ends them at `kill -9`); another opens the queue.
  func restartAfterACrash(_ store: any JobStore, _ kind: StoreKind, database: String) async throws -> any JobStore {
    if kind == .postgres { await store.close() }
    return try kind.open(database)
  }

  @Test(arguments: StoreKind.allCases) func claimsAreFIFOAndWaitForARetry(kind: StoreKind) async throws {
    let (_, store) = try queue(kind)
    #expect(try await store.claimNext(printer: "counter") == nil, "nothing is claimed before the printer is taken")
    #expect(try await store.own(printer: "counter", maxCrashes: 3) == [])
    let jobs = try await (0..<3).asyncMap { _ in try await store.accept(request(), idempotencyKey: nil).job }
    let head = try #require(try await store.claimNext(printer: "counter"))
    #expect(head.id == jobs[0].id && head.state == .printing && head.attempts == 1 && head.stage == .rendering)
    #expect(try await store.claimNext(printer: "counter") == nil, "nothing behind a printing head")
    let due = Date().addingTimeInterval(30)
    try await store.fail(head.id, error: "away", retryAt: due, state: .queued)
    #expect(try await store.claimNext(printer: "counter") == nil, "the head waits for its retry; FIFO holds")
    #expect(abs(try #require(try await store.nextDue(printer: "counter")).timeIntervalSince(due)) < 0.01)
    // (Stores keep times to the millisecond: a moment after it is due.)
    #expect(try await store.claimNext(printer: "counter", now: due.addingTimeInterval(0.001))?.id == jobs[0].id)
    try await store.complete(jobs[0].id, cupsJobID: nil, documentSHA256: "ab")
    let done = try #require(try await store.job(jobs[0].id))
    #expect(done.state == .completed && done.documentSHA256 == "ab" && done.attempts == 2 && done.stage == nil)
    #expect(try await store.claimNext(printer: "counter")?.id == jobs[1].id)
    await store.close()
  }

  @Test(arguments: StoreKind.allCases) func outcomesCancelRetryAndRequeue(kind: StoreKind) async throws {
    let (_, store) = try queue(kind)
    _ = try await store.own(printer: "counter", maxCrashes: 3)
    let first = try await store.accept(request(), idempotencyKey: nil).job
    let second = try await store.accept(request(), idempotencyKey: nil).job
    _ = try await store.claimNext(printer: "counter")
    #expect(try await store.cancel(first.id)?.state == .printing, "a job in hand is not canceled")
    try await store.fail(first.id, error: "bad data", retryAt: nil, state: .failed)
    #expect(try await store.cancel(second.id)?.state == .canceled)
    #expect(try await store.cancel("no-such-job") == nil)
    let retried = try #require(try await store.retry(first.id))
    #expect(retried.state == .queued && retried.attempts == 0)
    #expect(try await store.retry(second.id)?.state == .canceled, "only failed or dead jobs are retried")
    let again = try #require(try await store.claimNext(printer: "counter"))
    try await store.progress(again.id, cupsJobID: 42, printerState: "pending, printer-stopped")
    let followed = try #require(try await store.job(again.id))
    #expect(
      followed.cupsJobID == 42 && followed.printerState == "pending, printer-stopped" && followed.stage == .printer)
    try await store.requeue(again.id)
    #expect(try await store.job(again.id)?.state == .queued)
    await store.close()
  }

  @Test(arguments: StoreKind.allCases) func submissionsAreIdempotentAndOrdersAllOrNone(kind: StoreKind) async throws {
    let (_, store) = try queue(kind)
    let (job, created) = try await store.accept(request(), idempotencyKey: "key-1")
    let (again, createdAgain) = try await store.accept(request(), idempotencyKey: "key-1")
    #expect(created && !createdAgain && again.id == job.id)
    let tickets = [request("kitchen"), request("bar")]
    let order = OrderRequest(data: Self.order, locale: "de_DE", routes: ["kitchen", "bar-2"], tickets: tickets)
    let (stored, jobs, orderCreated) = try await store.acceptOrder(order, idempotencyKey: "order-1")
    #expect(orderCreated && jobs.map(\.printer) == ["kitchen", "bar"] && jobs.allSatisfy { $0.orderID == stored.id })
    let (same, sameJobs, sameCreated) = try await store.acceptOrder(order, idempotencyKey: "order-1")
    #expect(!sameCreated && same.id == stored.id && sameJobs.map(\.id) == jobs.map(\.id))
    let read = try #require(try await store.order(stored.id))
    #expect(read.jobs.map(\.id) == jobs.map(\.id) && read.order.locale == "de_DE")
    #expect(read.order.routes == ["kitchen", "bar-2"], "the routes asked for, read back by name")
    #expect(read.order.data == Self.order && read.order.idempotencyKey == "order-1" && read.order.id == stored.id)
    let all = OrderRequest(data: Self.order, locale: nil, routes: nil, tickets: [request("kitchen")])
    let (every, _, _) = try await store.acceptOrder(all, idempotencyKey: "order-2")
    #expect(try await store.order(every.id)?.order.routes == nil, "no routes asked: every route")
    await store.close()
  }

  /// A document job (IPP) keeps its format, name, user and options; a held one (Create-Job)
  /// is not its printer's head until its document arrives, and keeps it once it has.
  @Test(arguments: StoreKind.allCases) func documentJobsAndHeldJobs(kind: StoreKind) async throws {
    let (_, store) = try queue(kind)
    _ = try await store.own(printer: "counter", maxCrashes: 3)
    var held = JobRequest(printer: "counter", template: "", data: Data())
    held.held = true
    held.user = "ana"
    held.jobName = "Beleg 42"
    held.printOptions = DocumentJobOptions(scaling: .fit)
    let first = try await store.accept(held, idempotencyKey: nil).job
    var document = JobRequest(printer: "counter", template: "", data: Data([0x52, 0x61, 0x53, 0x32]))
    document.documentFormat = .pwgRaster
    let second = try await store.accept(document, idempotencyKey: nil).job
    #expect(first.state == .held && second.state == .queued)
    let head = try #require(try await store.claimNext(printer: "counter"))
    #expect(head.id == second.id, "the held job is not the head")
    try await store.complete(second.id, cupsJobID: nil)
    #expect(try await store.claimNext(printer: "counter") == nil)
    let pdf = Data("%PDF-1.7 receipt".utf8)
    let (released, wasHeld) = try #require(
      try await store.release(first.id, data: pdf, documentFormat: .pdf))
    #expect(wasHeld && released.state == .queued)
    let stored = try #require(try await store.job(first.id))
    #expect(stored.data == pdf && stored.documentFormat == .pdf && stored.user == "ana")
    #expect(stored.jobName == "Beleg 42" && stored.printOptions == DocumentJobOptions(scaling: .fit))
    #expect(try await store.claimNext(printer: "counter")?.id == first.id, "released, it prints")
    var late = JobRequest(printer: "counter", template: "", data: Data())
    late.held = true
    let abandoned = try await store.accept(late, idempotencyKey: nil).job
    #expect(try await store.abandon(abandoned.id, reason: "no document")?.state == .failed)
    await store.close()
  }

  @Test(arguments: StoreKind.allCases) func reprintsAreNumberedAfterTheOthers(kind: StoreKind) async throws {
    let (_, store) = try queue(kind)
    _ = try await store.own(printer: "counter", maxCrashes: 3)
    let original = try await store.accept(request(), idempotencyKey: nil).job
    _ = try await store.claimNext(printer: "counter")
    try await store.complete(original.id, cupsJobID: nil)
    let printed = try #require(try await store.job(original.id))
    let first = try await store.reprint(printed, idempotencyKey: nil)
    let second = try await store.reprint(printed, idempotencyKey: "r2")
    let secondAgain = try await store.reprint(printed, idempotencyKey: "r2")
    #expect(first.created && first.job.reprint == 1 && first.job.reprintOf == original.id)
    #expect(second.job.reprint == 2 && !secondAgain.created && secondAgain.job.id == second.job.id)
    await store.close()
  }

  @Test(arguments: StoreKind.allCases) func failoverMovesQueuedTicketsThatHaveAFallback(kind: StoreKind) async throws {
    let (_, store) = try queue(kind)
    _ = try await store.own(printer: "kitchen", maxCrashes: 3)
    let inHand = try await store.accept(request("kitchen", fallback: "bar"), idempotencyKey: nil).job
    let ticket = try await store.accept(request("kitchen", fallback: "bar"), idempotencyKey: nil).job
    let plain = try await store.accept(request("kitchen"), idempotencyKey: nil).job
    _ = try await store.claimNext(printer: "kitchen")
    let moved = try await store.failOver(printer: "kitchen", reason: "paper out (for 30 s)")
    #expect(moved.map(\.id) == [ticket.id], "the job in hand and the one without a fallback stay")
    let read = try #require(try await store.job(ticket.id))
    #expect(read.printer == "bar" && read.fallbackFor == "kitchen" && read.failoverReason == "paper out (for 30 s)")
    #expect(try await store.job(inHand.id)?.printer == "kitchen")
    #expect(try await store.job(plain.id)?.printer == "kitchen")
    await store.close()
  }

  /// What a crash leaves, by stage: a job in its own render counts a crash (dead at the third);
  /// one with its printer (sent to a raw printer, handed to a directory, at CUPS) does not; a
  /// clean stop counts nothing.
  @Test(arguments: StoreKind.allCases) func crashesAreCountedOnlyAgainstAJobsOwnWork(kind: StoreKind) async throws {
    var (database, store) = try queue(kind)
    _ = try await store.own(printer: "counter", maxCrashes: 3)
    let job = try await store.accept(request(), idempotencyKey: nil).job
    for crash in 1...3 {
      #expect(try await store.claimNext(printer: "counter")?.id == job.id, "claimed before crash \(crash)")
      store = try await restartAfterACrash(store, kind, database: database)
      let recovered = try #require(try await store.own(printer: "counter", maxCrashes: 3))
      #expect(recovered.map(\.crashes) == [crash] && recovered.first?.state == (crash < 3 ? .queued : .dead))
    }
    let dead = try #require(try await store.job(job.id))
    #expect(dead.error?.contains("stopped 3 times while rendering this job") == true)

    let sent = try await store.accept(request(), idempotencyKey: nil).job
    for handOver in ["raw", "directory", "cups"] {
      let claimed = try #require(try await store.claimNext(printer: "counter"))
      #expect(claimed.id == sent.id)
      switch handOver {
      case "raw": try await store.recordSent(claimed.drawnAsSent(processID: "AB12"))
      case "directory": try await store.markHandedOver(sent.id)
      default: try await store.progress(sent.id, cupsJobID: 7, printerState: nil)
      }
      #expect(try await store.job(sent.id)?.stage == .printer)
      store = try await restartAfterACrash(store, kind, database: database)
      let recovered = try #require(try await store.own(printer: "counter", maxCrashes: 1))
      #expect(recovered.map(\.state) == [.queued] && recovered[0].crashes == 0, "\(handOver): not the job's fault")
    }

    // A clean stop: the job left printing is checked again, no crash.
    #expect(try await store.claimNext(printer: "counter")?.id == sent.id)
    await store.release(printer: "counter")
    await store.close()
    store = try kind.open(database)
    let clean = try #require(try await store.own(printer: "counter", maxCrashes: 1))
    #expect(clean.map(\.id) == [sent.id] && clean[0].crashes == 0 && clean[0].state == .queued)
    await store.close()
  }

  /// A receipt goes out only as it was drawn: the store records the job sent as the worker drew
  /// it (the same attempt, the same interruptions — so the same "REPRINT" mark — and process ID),
  /// or refuses when the job changed since, and nothing is recorded.
  @Test(arguments: StoreKind.allCases) func aJobIsRecordedSentOnlyAsItWasDrawn(kind: StoreKind) async throws {
    let (_, store) = try queue(kind)
    _ = try await store.own(printer: "counter", maxCrashes: 3)
    let job = try await store.accept(request(), idempotencyKey: nil).job
    let claimed = try #require(try await store.claimNext(printer: "counter"))
    let drawn = claimed.drawnAsSent(processID: "AB12")
    #expect(drawn.interruptions == 0 && drawn.processID == "AB12")

    // Another writer records the job sent first (another drawing of it): the receipt drawn
    // without "REPRINT" would now be an interruption in the store, so it is refused.
    let other = try await store.recordSent(claimed.drawnAsSent(processID: "CD34"))
    #expect(other.interruptions == 0 && other.processID == "CD34" && other.stage == .printer)
    let stored = try #require(try await store.job(job.id))
    await #expect(throws: DrawnJobChanged.self) { try await store.recordSent(drawn) }
    let kept = try #require(try await store.job(job.id))
    #expect(kept.processID == "CD34" && kept.interruptions == 0 && kept.updatedAt == stored.updatedAt)

    // A drawing of an earlier attempt is refused after the job was queued again and claimed.
    try await store.fail(job.id, error: "paper out", retryAt: Date(), state: .queued)
    let again = try #require(try await store.claimNext(printer: "counter", now: Date().addingTimeInterval(1)))
    #expect(again.attempts == 2)
    await #expect(throws: DrawnJobChanged.self) {
      try await store.recordSent(claimed.drawnAsSent(processID: "EF56"))
    }
    // The one drawn from the job as stored is recorded exactly as drawn: a reprint this time.
    let reprint = again.drawnAsSent(processID: "EF56")
    #expect(reprint.interruptions == 1)
    let recorded = try await store.recordSent(reprint)
    #expect(recorded.interruptions == 1 && recorded.processID == "EF56" && recorded.attempts == 2)
    #expect(try await store.job(job.id)?.interruptions == 1)

    // A job no longer printing (canceled, completed) is never recorded as sent.
    try await store.complete(job.id, cupsJobID: nil)
    await #expect(throws: DrawnJobChanged.self) { try await store.recordSent(reprint) }
    #expect(try await store.job(job.id)?.state == .completed)
    await store.close()
  }

  /// Wake-ups are a result of the queue's rule (``Job/printersToWake(from:to:)``), delivered the
  /// same by every store: once, they differed — a canceled held job, and a recovery that ended
  /// `dead`, woke a worker on SQLite only, and PostgreSQL's trigger had a rule of its own.
  @Test(arguments: StoreKind.allCases) func wakeUpsAreTheRulesOnEveryStore(kind: StoreKind) async throws {
    var (database, store) = try queue(kind)
    let woken = Locked<[String]>([])
    func observe(_ store: any JobStore) { store.observeWork { printer in woken.withLock { $0.append(printer) } } }
    observe(store)
    _ = try await store.own(printer: "counter", maxCrashes: 1)
    _ = try await store.own(printer: "kitchen", maxCrashes: 1)
    /// What `step` woke: the printers, sorted, once their wake-ups had time to arrive.
    func wakes(_ step: () async throws -> Void) async throws -> [String] {
      try await Task.sleep(for: .milliseconds(kind == .postgres ? 300 : 20))
      woken.withLock { $0 = [] }
      try await step()
      try await Task.sleep(for: .milliseconds(kind == .postgres ? 500 : 50))
      return woken.withLock { Set($0).sorted() }
    }
    var held = request()
    held.held = true
    var heldJob: Job?
    #expect(try await wakes { heldJob = try await store.accept(held, idempotencyKey: nil).job } == [], "held")
    #expect(try await wakes { _ = try await store.cancel(try #require(heldJob).id) } == [], "a held job canceled")
    var queued: Job?
    #expect(try await wakes { queued = try await store.accept(request(), idempotencyKey: nil).job } == ["counter"])
    #expect(try await wakes { _ = try await store.cancel(try #require(queued).id) } == ["counter"], "a head canceled")
    let ticket = try await store.accept(request(fallback: "kitchen"), idempotencyKey: nil).job
    #expect(
      try await wakes { _ = try await store.failOver(printer: "counter", reason: "paper out") } == [
        "counter", "kitchen",
      ],
      "moved: both queues changed")
    #expect(try await store.job(ticket.id)?.printer == "kitchen")
    // A job claimed, then the daemon dies: the recovery ends it dead (maxCrashes 1), no wake.
    _ = try await store.claimNext(printer: "kitchen")
    store = try await restartAfterACrash(store, kind, database: database)
    observe(store)
    var recovered: [Job]?
    #expect(try await wakes { recovered = try await store.own(printer: "kitchen", maxCrashes: 1) } == [], "dead")
    #expect(recovered?.map(\.state) == [.dead])
    let retried = try await wakes { _ = try await store.retry(ticket.id) }
    #expect(retried == ["kitchen"], "a dead job retried")
    await store.close()
  }

  /// One definition of a clean stop (``LastStop``): a printer no daemon drove before has nothing
  /// to account for (SQLite once counted a fresh queue as a crash, PostgreSQL as clean); a clean
  /// stop is clean and a death unclean, per printer, on every store.
  @Test(arguments: StoreKind.allCases) func theLastStopIsTheSameOnEveryStore(kind: StoreKind) async throws {
    var (database, store) = try queue(kind)
    #expect(try await store.takeOwnership(of: "counter") == .never, "a fresh queue")
    await store.release(printer: "counter")
    await store.close()
    store = try kind.open(database)
    #expect(try await store.takeOwnership(of: "counter") == .clean, "given up by a clean stop")
    #expect(try await store.takeOwnership(of: "kitchen") == .never, "a printer added since")
    store = try await restartAfterACrash(store, kind, database: database)
    #expect(try await store.takeOwnership(of: "counter") == .unclean, "its daemon died")
    #expect(try await store.takeOwnership(of: "kitchen") == .unclean)
    await store.close()
  }
}

extension Job {
  /// This claimed job as a worker draws its receipt just before sending it
  /// (``Job/markSent(processID:now:)`` applied to a copy), for ``JobStore/recordSent(_:now:)``.
  func drawnAsSent(processID: String?) -> Job {
    var drawn = self
    drawn.markSent(processID: processID, now: Date())
    return drawn
  }
}
