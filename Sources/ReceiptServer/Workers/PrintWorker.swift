import Foundation
import Logging
import ReceiptKit

#if canImport(Glibc)
  import Glibc
#endif

/// Prints one printer's jobs strictly in order on its own thread: claims the head of the queue,
/// renders and sends it, follows it to the end, and records the outcome. Transient failures
/// (printer or CUPS unavailable, job aborted) retry with exponential backoff and jitter while the
/// jobs behind wait; permanent ones (template or data errors, a printer that does not exist) fail
/// at once; after `maxAttempts` a job is dead. A job waiting on a stopped CUPS queue is followed,
/// not retried: CUPS holds it and the daemon holds the jobs behind it.
// @unchecked: `stopAt`, `finished` and `woken` are read and written only under `state` (an
// NSCondition: the worker thread sleeps on it); the rest is immutable.
final class PrintWorker: @unchecked Sendable {
  let printer: PrinterConfig
  let store: JobStore
  let engine: ReceiptEngine
  let templates: URL
  let maxAttempts: Int
  let logger: Logger
  let metrics: ServerMetrics
  private let state = NSCondition()
  private var stopAt: Date?
  private var finished = false
  /// Work arrived since the worker last looked (set by ``wake()``, cleared when it looks).
  private var woken = false
  /// Whether the raw printer answers status requests, and the current hold.
  let rawStatus = RawStatusMemory()
  /// Where printed documents are kept (nil: not kept).
  let archive: URL?
  /// Since when and why the printer cannot print (see ``PrintWorker+Failover``).
  let outage: Outage
  /// Crashes after which a job the last owner left printing is dead (see ``JobStore/own(printer:maxCrashes:now:)``).
  let maxCrashes: Int
  /// Seconds between attempts to take a printer another daemon owns.
  static let ownershipRetry: TimeInterval = 1

  /// A stop interrupted the job; it stays `printing` and is reconciled at the next start.
  struct Interrupted: Error {}

  init(
    printer: PrinterConfig, store: JobStore, engine: ReceiptEngine, templates: URL, maxAttempts: Int, logger: Logger,
    metrics: ServerMetrics, archive: URL? = nil, failoverAfter: TimeInterval = 30, maxCrashes: Int = 3
  ) {
    self.archive = archive
    self.maxCrashes = maxCrashes
    self.outage = Outage(failoverAfter: failoverAfter)
    self.printer = printer
    self.store = store
    self.engine = engine
    self.templates = templates
    self.maxAttempts = maxAttempts
    self.logger = logger
    self.metrics = metrics
  }

  func start() {
    let thread = Thread { [self] in
      // Rendering is background work: the API answers first (a printer prints a receipt in a
      // second or so; a till waits for its 202 on every sale).
      Self.lowerThisThreadsPriority()
      run()
      state.lock()
      finished = true
      state.broadcast()
      state.unlock()
    }
    thread.name = "printer \(printer.name)"
    thread.start()
  }

  /// nice 10 for the calling thread (Linux: setpriority on its thread id, read from
  /// /proc/thread-self, as Glibc's gettid is not visible to Swift).
  static func lowerThisThreadsPriority() {
    guard let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self"),
      let tid = id_t(link.split(separator: "/").last ?? "")
    else { return }
    _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), tid, 10)
  }

  /// Asks the worker to stop: it takes no new job and gives the current one `grace` seconds.
  func stop(grace: TimeInterval = 10) {
    state.lock()
    stopAt = stopAt ?? Date().addingTimeInterval(grace)
    state.broadcast()
    state.unlock()
  }

  /// Waits until the worker's thread has ended (after `stop`).
  func join() {
    state.lock()
    while !finished { state.wait() }
    state.unlock()
  }

  /// There may be work: an accepted, retried or requeued job (the store calls this after the
  /// commit). A wake while the worker is busy is kept, so none is lost.
  func wake() {
    state.lock()
    woken = true
    state.broadcast()
    state.unlock()
  }

  /// Sleeps until woken, stopped, or `due` (the head's retry time; nil: no timer).
  private func idle(until due: Date?) {
    state.lock()
    while !woken, stopAt == nil {
      if let due {
        guard state.wait(until: due) else { break }
      } else {
        state.wait()
      }
    }
    woken = false
    state.unlock()
  }

  private var isStopping: Bool {
    state.lock()
    defer { state.unlock() }
    return stopAt != nil
  }

  /// The stop's grace period is over: the job in hand is left for reconciliation.
  var mustLeave: Bool {
    state.lock()
    defer { state.unlock() }
    return stopAt.map { Date() >= $0 } ?? false
  }

  /// Sleeps up to `seconds`, waking early when a stop is requested.
  func pause(_ seconds: TimeInterval) {
    state.lock()
    if stopAt == nil { _ = state.wait(until: Date().addingTimeInterval(seconds)) }
    state.unlock()
  }

  /// Takes the head job while there is one; otherwise sleeps until a job arrives (``wake()``)
  /// or the head's retry is due. No polling.
  private func run() {
    defer { store.release(printer: printer.name) }
    while !isStopping {
      do {
        state.lock()
        woken = false  // what is committed now is seen by the claim below
        state.unlock()
        guard try holdsPrinter() else {
          pause(Self.ownershipRetry)
          continue
        }
        let hold = rawPrinterHold()
        noteHold(hold)
        if let hold {
          outage.begin(hold.message)
          failOverIfDue()
          pause(Self.holdPollInterval)
          continue
        }
        if let job = try store.claimNext(printer: printer.name, now: Date()) {
          process(job)
          failOverIfDue()
        } else {
          let due = try store.nextDue(printer: printer.name)
          idle(until: [due, outage.failoverDue].compactMap { $0 }.min())
          failOverIfDue()
        }
      } catch {
        logger.error("queue store failed: \(error)")
        pause(1)
      }
    }
  }

  /// Whether this daemon drives the printer, taking it when it is free (another daemon that owned
  /// it stopped or died): the jobs that daemon left printing are then checked with the printer
  /// before anything is sent again.
  private func holdsPrinter() throws -> Bool {
    if store.owns(printer: printer.name) { return true }
    guard let recovered = try store.own(printer: printer.name, maxCrashes: maxCrashes, now: Date()) else {
      return false
    }
    logger.info("this daemon now drives printer \(printer.name)")
    for job in recovered {
      if job.state == .dead {
        logger.error("job \(job.id) is dead: \(job.error ?? "")")
      } else {
        logger.info("job \(job.id) was left printing by the last owner; it is checked with the printer first")
      }
    }
    return true
  }

  /// How a job's attempt ended.
  enum Outcome {
    case completed(cupsJobID: Int?)
    /// Permanent: not retried.
    case failed(String)
    case retry(String, at: Date)
    /// Too many attempts.
    case dead(String)
  }

  /// Renders and prints one claimed job and records the result. A job's outcome is never
  /// dropped: if the store cannot take it (disk full), the worker keeps trying, and takes no
  /// other job meanwhile (a job left `printing` would otherwise stop the queue until a restart).
  func process(_ job: Job) {
    let started = Date()
    let outcome: Outcome
    do {
      outcome = .completed(cupsJobID: try print(job))
      metrics.observePrint(seconds: Date().timeIntervalSince(started))
      logger.info("job \(job.id) printed on \(printer.name)")
    } catch is Interrupted {
      logger.info("job \(job.id) interrupted by the stop; it is reconciled at the next start")
      return
    } catch let lost as OwnershipLost {
      logger.error("\(lost); it is reconciled by the daemon that drives the printer now")
      return
    } catch let failover as FailOver {
      // Taken back from a stopped CUPS queue: queued again, and moved to the fallback below.
      outage.begin(failover.reason)
      outage.forceDue()
      record(.retry(failover.reason, at: Date()), of: job)
      return
    } catch let error as ReceiptError where error.isPermanent {
      outcome = .failed(error.message)
      logger.warning("job \(job.id) failed: \(error.message)")
    } catch {
      let message = Self.describe(error)
      if job.attempts >= maxAttempts {
        outcome = .dead(message)
        logger.error("job \(job.id) dead after \(job.attempts) attempts: \(message)")
      } else {
        let delay = Self.backoff(attempt: job.attempts)
        outcome = .retry(message, at: Date().addingTimeInterval(delay))
        logger.warning(
          "job \(job.id) attempt \(job.attempts) failed, retrying in \(String(format: "%.1f", delay)) s: \(message)")
      }
    }
    record(outcome, of: job)
  }

  /// Stores an outcome, retrying (0.5 s doubling to 30 s) while the store cannot write, until it
  /// works or the stop's grace period is over (then reconciliation at the next start decides).
  private func record(_ outcome: Outcome, of job: Job) {
    var delay = 0.5
    while true {
      do {
        let now = Date()
        switch outcome {
        case .completed(let id):
          let hash = archive.flatMap { ArchiveFile.hash(job: job.id, in: $0) }
          try store.complete(job.id, cupsJobID: id, documentSHA256: hash, now: now)
          outage.end()
          if let route = job.route { metrics.countPrintedTicket(route: route) }
        case .failed(let message): try store.fail(job.id, error: message, retryAt: nil, state: .failed, now: now)
        case .retry(let message, let at):
          try store.fail(job.id, error: message, retryAt: at, state: .queued, now: now)
          outage.begin(message)
        case .dead(let message):
          try store.fail(job.id, error: message, retryAt: nil, state: .dead, now: now)
          outage.begin(message)
        }
        return
      } catch let lost as OwnershipLost {
        // The new owner reconciles the job with the printer; nothing more is recorded here.
        logger.error("\(lost)")
        return
      } catch {
        logger.error("cannot record the outcome of job \(job.id): \(error); trying again in \(delay) s")
        if mustLeave { return }
        pause(delay)
        delay = min(30, delay * 2)
      }
    }
  }

  /// Writes the job's document to the archive before it is sent (nil: no archive). A
  /// directory printer's job that printed before a crash keeps the document it had.
  func archiver(_ job: Job) -> (@Sendable (Data) throws -> Void)? {
    guard let archive else { return nil }
    let id = job.id
    return { pdf in try ArchiveFile.write(pdf, job: id, in: archive) }
  }

  /// A failed attempt in words, with what the queue does next where the printer left the
  /// receipt half printed or unconfirmed (the printing layer says only what happened).
  static func describe(_ error: any Error) -> String {
    guard let error = error as? ReceiptError else { return "\(error)" }
    switch error.underlying as? PrintError {
    case .interrupted?: return error.message + "; it prints again, marked as a reprint, once the printer is ready"
    case .notConfirmed?: return error.message + "; it is sent again, marked as a reprint"
    default: return error.message
    }
  }

  /// Exponential backoff with ±25 % jitter: 0.5 s, 1 s, 2 s … capped at 60 s.
  static func backoff(attempt: Int) -> TimeInterval {
    min(60, 0.5 * pow(2, Double(max(0, attempt - 1)))) * Double.random(in: 0.75...1.25)
  }

  /// The job's document, titled with its id (the CUPS job name the daemon finds it by). The
  /// template sees `$reprint` (a reprint's number) and `$ticket` (`route`, `label`, and
  /// `fallbackFor`: the label of the printer it was meant for when it prints on a fallback).
  func document(_ job: Job) throws -> ReceiptDocument {
    var options = TemplateOptions(locale: job.locale, printHead: printer.model?.printHead)
    options.variables = TemplateOptions.ticketVariables(
      route: job.route, label: job.label, fallbackFor: job.fallbackFor.map { job.label ?? $0.uppercased() },
      reprint: job.reprint, interrupted: job.interruptions)
    var document = try engine.templateDocument(
      template: job.template, data: job.data, templates: templates, options: options
    ).document
    document.title = Self.cupsJobName(job)
    return document
  }

  /// Sends a job; returns the CUPS job id for CUPS printers. A directory printer writes the
  /// job's file unless it is there (printed before a crash); a socket printer gets the bytes
  /// (at least once after a crash: it cannot be asked).
  private func print(_ job: Job) throws -> Int? {
    // Fencing: a daemon that lost the printer (its database session) sends nothing more.
    guard store.owns(printer: printer.name) else { throw OwnershipLost(job: job.id) }
    switch printer.target {
    case .cups(let queue, let server):
      return try printCUPS(job, queue: queue, server: server)
    case .directory(let url):
      // Printed before a crash: nothing to lay out again.
      if DirectoryPrinter(directory: url).hasPrinted(PrintJob(name: Self.fileName(job))) { return nil }
      let request = PrintRequest(
        printer: printer.target.address, copies: job.copies, jobName: Self.fileName(job), archive: archiver(job),
        model: printer.model, willSend: handedOver(job))
      return try givingUpOnStop { try engine.print(document(job), request: request).jobID }
    case .socket, .device:
      // Recorded once the receipt is drawn, before the first byte goes out: a job found sent and
      // not completed (a crash, a lost connection, paper out mid-receipt) may have printed, so it
      // prints again marked "REPRINT" — and the document drawn already says what the store is
      // about to record. Models that confirm prints are asked to, with an ID of this attempt.
      let processID = printer.model?.confirmsPrints == true ? ReceiptEngine.processID() : nil
      var sent = job
      sent.markSent(processID: processID, now: Date())
      let (store, id) = (self.store, job.id)
      let request = PrintRequest(
        printer: printer.target.address, copies: job.copies, jobName: Self.fileName(job), archive: archiver(job),
        model: printer.model, processID: processID,
        willSend: { _ = try store.markSent(id, processID: processID, now: Date()) }, shouldStop: shouldStop)
      return try givingUpOnStop { try engine.print(document(sent), request: request).jobID }
    }
  }

  /// Records that the job's own work is done and it goes to its printer (so a crash from now on
  /// is not counted against it). Only crash accounting depends on it, so a store that cannot
  /// write (a full disk) does not stop the print: a crash would then count, as before stages.
  func handedOver(_ job: Job) -> @Sendable () throws -> Void {
    let (store, id, logger) = (self.store, job.id, self.logger)
    return {
      do { try store.markHandedOver(id, now: Date()) } catch let lost as OwnershipLost { throw lost } catch {
        logger.warning("job \(id): cannot record that it went to its printer (\(error)); printing it anyway")
      }
    }
  }

  /// True once the stop's grace period is over: a raw print in progress is given up (the job
  /// stays `printing` and is reconciled at the next start; it may have printed, so it prints
  /// again marked as a reprint).
  var shouldStop: @Sendable () -> Bool { { [weak self] in self?.mustLeave ?? true } }

  /// Runs a print, turning a print given up for the stop into ``Interrupted``.
  func givingUpOnStop<T>(_ body: () throws -> T) throws -> T {
    do {
      return try body()
    } catch let error as ReceiptError {
      if case .abandoned = error.underlying as? PrintError { throw Interrupted() }
      throw error
    }
  }

}
