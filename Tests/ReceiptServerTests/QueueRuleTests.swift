import Foundation
import Testing

@testable import ReceiptServer

/// The queue's rules (`Job+Rules`) as the functions they are: no database, no daemon.
@Suite struct QueueRuleTests {
  static let now = Date(timeIntervalSince1970: 1_764_000_000)

  static func job(_ state: Job.State = .queued, printer: String = "counter") -> Job {
    var request = JobRequest(printer: printer, template: "receipt", data: Data("{}".utf8))
    request.fallback = "bar"
    var job = Job(request, id: "j1", sequence: 7, idempotencyKey: nil, orderID: nil, now: now)
    job.state = state
    return job
  }

  @Test func aNewJobIsQueuedAndDueAtOnce() {
    let job = Self.job()
    #expect(job.state == .queued && job.attempts == 0 && job.notBefore == Self.now && job.isOpen)
    #expect(job.isDue(at: Self.now) && !job.isDue(at: Self.now.addingTimeInterval(-1)))
  }

  @Test func aClaimTakesADueHeadOnly() {
    var job = Self.job()
    job.notBefore = Self.now.addingTimeInterval(5)
    let early = job.claim(now: Self.now)
    #expect(!early && job.state == .queued && job.attempts == 0, "waiting for its retry")
    let due = job.claim(now: Self.now.addingTimeInterval(5))
    #expect(due && job.state == .printing && job.attempts == 1 && job.stage == .rendering)
    let twice = job.claim(now: Self.now.addingTimeInterval(6))
    #expect(!twice, "a printing job is not claimed again")
  }

  @Test func aSecondSendIsAnInterruption() {
    var job = Self.job(.printing)
    job.markSent(processID: "A1", now: Self.now)
    #expect(job.interruptions == 0 && job.processID == "A1" && job.stage == .printer && job.sentAt == Self.now)
    job.markSent(processID: "B2", now: Self.now.addingTimeInterval(1))
    #expect(job.interruptions == 1 && job.processID == "B2")
  }

  @Test func outcomes() {
    var done = Self.job(.printing)
    done.complete(cupsJobID: 12, documentSHA256: "ab", now: Self.now)
    #expect(done.state == .completed && done.cupsJobID == 12 && done.documentSHA256 == "ab" && done.stage == nil)
    var retrying = Self.job(.printing)
    retrying.fail(error: "away", retryAt: Self.now.addingTimeInterval(2), state: .queued, now: Self.now)
    #expect(
      retrying.state == .queued && retrying.notBefore == Self.now.addingTimeInterval(2) && retrying.error == "away")
    var dead = Self.job(.printing)
    dead.fail(error: "gone", retryAt: nil, state: .dead, now: Self.now)
    #expect(dead.state == .dead && dead.stage == nil)
    let retried = dead.retry(now: Self.now)
    #expect(retried && dead.state == .queued && dead.attempts == 0)
    var printing = Self.job(.printing)
    let canceled = printing.cancel(now: Self.now)
    #expect(!canceled && printing.state == .printing, "only a queued job is canceled")
    let retriedPrinting = printing.retry(now: Self.now)
    #expect(!retriedPrinting, "only a failed or dead job is retried")
    var queued = Self.job()
    let canceledQueued = queued.cancel(now: Self.now)
    #expect(canceledQueued && queued.state == .canceled)
    printing.requeue(now: Self.now)
    #expect(printing.state == .queued && printing.stage == nil)
  }

  /// Crash accounting: only a job's own work is blamed, only an unclean stop counts, and at
  /// `maxCrashes` the job is dead with the reason.
  @Test(arguments: [
    (Job.Stage?.some(.rendering), nil as Int?, true, 1), (.some(.printer), nil, true, 0), (nil, 5, true, 0),
    (nil, nil, true, 1), (.some(.rendering), nil, false, 0),
  ])
  func aCrashCountsOnlyWhileTheJobRenders(stage: Job.Stage?, cupsJobID: Int?, unclean: Bool, crashes: Int) {
    var job = Self.job(.printing)
    job.stage = stage
    job.cupsJobID = cupsJobID
    job.recoverFromCrash(counted: unclean, maxCrashes: 3, now: Self.now)
    #expect(job.crashes == crashes && job.state == .queued && job.stage == nil)
  }

  @Test func theThirdCrashInItsOwnRenderIsDeath() {
    var job = Self.job(.printing)
    for crash in 1...3 {
      job.state = .printing
      job.stage = .rendering
      job.recoverFromCrash(counted: true, maxCrashes: 3, now: Self.now)
      #expect(job.crashes == crash && job.state == (crash < 3 ? .queued : .dead))
    }
    #expect(job.error?.contains("stopped 3 times while rendering this job") == true)
  }

  @Test func failoverMovesAQueuedTicketWithAFallbackOnce() {
    var ticket = Self.job()
    ticket.attempts = 3
    ticket.cupsJobID = 9
    let moved = ticket.failOver(from: "counter", reason: "paper out", now: Self.now)
    #expect(moved && ticket.printer == "bar" && ticket.fallbackFor == "counter" && ticket.failoverReason == "paper out")
    #expect(ticket.attempts == 0 && ticket.cupsJobID == nil && ticket.notBefore == Self.now)
    let movedAgain = ticket.failOver(from: "bar", reason: "again", now: Self.now)
    #expect(!movedAgain, "already at its fallback")
    var printing = Self.job(.printing)
    let movedInHand = printing.failOver(from: "counter", reason: "x", now: Self.now)
    #expect(!movedInHand, "a job in hand is never moved")
    var none = Self.job()
    none.fallback = nil
    let movedNone = none.failOver(from: "counter", reason: "x", now: Self.now)
    #expect(!movedNone)
  }

  @Test func aReprintIsTheSameReceiptNumberedAfterTheOthers() {
    var original = Self.job(.completed)
    original.route = "kitchen"
    original.label = "KITCHEN"
    let request = JobRequest.reprint(of: original, earlierReprints: 2)
    #expect(request.reprintOf == original.id && request.reprint == 3 && request.route == "kitchen")
    #expect(request.printer == original.printer && request.data == original.data && request.copies == original.copies)
  }

  /// IPP Create-Job: a held job is no part of its printer's queue until its document arrives;
  /// then it is queued, due now, with the document; one that never gets one fails.
  @Test func aHeldJobWaitsOutsideTheQueueForItsDocument() {
    var request = JobRequest(printer: "counter", template: "", data: Data())
    request.held = true
    request.user = "ana"
    var job = Job(request, id: "h1", sequence: 9, idempotencyKey: nil, orderID: nil, now: Self.now)
    #expect(job.state == .held && !job.isOpen && !job.isDue(at: Self.now) && job.user == "ana")
    let claimed = job.claim(now: Self.now)
    #expect(!claimed, "a held job is not claimed")
    let pdf = Data("%PDF-1.7".utf8)
    let later = Self.now.addingTimeInterval(3)
    let released = job.release(data: pdf, documentFormat: .pdf, now: later)
    #expect(released)
    #expect(
      job.state == .queued && job.data == pdf && job.documentFormat == .pdf && job.notBefore == later)
    let again = job.release(data: Data(), documentFormat: nil, now: later)
    let abandoned = job.abandon(reason: "late", now: later)
    #expect(!again && !abandoned, "one document; only a held job is abandoned")
    var late = Job(request, id: "h2", sequence: 10, idempotencyKey: nil, orderID: nil, now: Self.now)
    let gaveUp = late.abandon(reason: "no document arrived", now: later)
    #expect(gaveUp && late.state == .failed && late.error == "no document arrived")
    var canceled = Job(request, id: "h3", sequence: 11, idempotencyKey: nil, orderID: nil, now: Self.now)
    let cancel = canceled.cancel(now: later)
    #expect(cancel && canceled.state == .canceled, "a held job can be canceled")
  }
}
