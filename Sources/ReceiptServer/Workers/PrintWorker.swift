import Foundation
import Logging
import ReceiptKit
@_spi(Internals) import ReceiptModel
import ServiceLifecycle

#if canImport(Glibc)
  import Glibc
#endif

/// Prints one printer's jobs strictly in order: a Service of the daemon, whose loop claims the
/// head of the queue, renders and sends it, follows it to the end, and records the outcome.
/// Transient failures (printer or CUPS unavailable, job aborted) retry with exponential backoff
/// and jitter while the jobs behind wait; permanent ones (template or data errors, a printer that
/// does not exist) fail at once; after `maxAttempts` a job is dead. A job waiting on a stopped
/// CUPS queue is followed, not retried: CUPS holds it and the daemon holds the jobs behind it.
///
/// The loop is async and sleeps until the store reports work for its printer (``wake()``) or the
/// head's retry is due — no polling. Its blocking work (cairo, libcups, the printer's socket or
/// device) runs on a thread pool of one thread of its own (``pool``).
final class PrintWorker: Service, Sendable {
  let printer: PrinterConfig
  let store: any JobStore
  let engine: ReceiptEngine
  let templates: URL
  let maxAttempts: Int
  let logger: Logger
  let metrics: ServerMetrics
  /// Where printed documents are kept (nil: not kept).
  let archive: URL?
  /// Since when and why the printer cannot print (see ``PrintWorker+Failover``).
  let outage: Outage
  /// Crashes after which a job the last driver left printing is dead.
  let maxCrashes: Int
  /// Seconds the job in hand gets once the daemon stops.
  let grace: TimeInterval
  /// The devices of printers that poll (nil: none).
  let polled: PolledPrinters?
  /// The e-receipts' sender and transport (nil: no `mailFrom`).
  let mail: MailSettings?
  /// Whether the raw printer answers status requests, and the current hold.
  let rawStatus = RawStatusMemory()
  /// What the printer's IPP front reports: the printer's status while it holds the queue (paper
  /// out, cover open), nil while it prints.
  let hold = Locked<PrinterStatus?>(nil)
  /// The printer's one thread for blocking work.
  let pool = BlockingPool(threads: 1)
  private let signal = WakeSignal()
  /// Signaled by ``stop()`` only: a worker waiting to take a printer another daemon owns is not
  /// woken by that printer's work (every submission's wake-up reaches every daemon; each woke
  /// the waiting workers of a fleet into a new database session — the owner prints it).
  private let stopping = WakeSignal()
  /// When the job in hand must be left (set when the daemon stops: now + `grace`).
  private let leaveAt = Locked<Date?>(nil)
  /// Seconds between attempts to take a printer another daemon owns.
  static let ownershipRetry: TimeInterval = 1

  /// A stop interrupted the job; it stays `printing` and is reconciled at the next start.
  struct Interrupted: Error {}

  init(
    printer: PrinterConfig, store: any JobStore, engine: ReceiptEngine, templates: URL, maxAttempts: Int,
    logger: Logger, metrics: ServerMetrics, archive: URL? = nil, failoverAfter: TimeInterval = 30,
    maxCrashes: Int = 3, grace: TimeInterval = 10, polled: PolledPrinters? = nil, mail: MailSettings? = nil
  ) {
    self.polled = polled
    self.mail = mail
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
    self.grace = grace
  }

  /// Takes the head job while there is one; otherwise sleeps until a job arrives or the head's
  /// retry is due. On graceful shutdown it takes no new job and gives the one in hand `grace`
  /// seconds; then it gives its printer up.
  func run() async {
    // Rendering is background work: the API answers first (a printer prints a receipt in a
    // second or so; a till waits for its 202 on every sale).
    _ = try? await pool.run { Self.lowerThisThreadsPriority() }
    await withGracefulShutdownHandler {
      await loop()
    } onGracefulShutdown: {
      self.stop()
    }
    await store.release(printer: printer.name)
    await pool.shutdown()
  }

  private func loop() async {
    // A canceled task (the daemon's group stopping because a part failed) leaves at once: every
    // wait below returns immediately then, and the loop would spin.
    while !isStopping, !Task.isCancelled {
      do {
        signal.reset()  // what is committed now is seen by the claim below
        guard try await holdsPrinter() else {
          if !isStopping { await stopping.wait(until: Date().addingTimeInterval(Self.ownershipRetry)) }
          continue
        }
        let hold = await rawPrinterHold()
        noteHold(hold)
        if let hold {
          outage.begin(hold.message)
          await failOverIfDue()
          await pause(Self.holdPollInterval)
          continue
        }
        if let job = try await store.claimNext(printer: printer.name) {
          await process(job)
          await failOverIfDue()
        } else {
          let due = try await store.nextDue(printer: printer.name)
          await signal.wait(until: [due, outage.failoverDue].compactMap { $0 }.min())
          // Only the outage's own time moves tickets from an idle worker: a ticket that woke it
          // gets its one attempt at its own printer first (the loop claims it).
          if let failover = outage.failoverDue, failover <= Date() { await failOverIfDue() }
        }
      } catch {
        logger.error("queue store failed: \(error)")
        await pause(1)
      }
    }
  }

  /// Stops the worker: it takes no new job and gives the one in hand `grace` seconds.
  func stop() {
    leaveAt.withLock { $0 = $0 ?? Date().addingTimeInterval(grace) }
    signal.signal()
    stopping.signal()
  }

  /// There may be work: an accepted, retried or requeued job (the store calls this after the
  /// commit). A wake while the worker is busy is kept, so none is lost.
  func wake() { signal.signal() }

  private var isStopping: Bool { leaveAt.withLock { $0 != nil } }

  /// The stop's grace period is over: the job in hand is left for reconciliation.
  var mustLeave: Bool { leaveAt.withLock { $0.map { Date() >= $0 } ?? false } }

  /// True once the stop's grace period is over: a raw print in progress is given up (the job
  /// stays `printing` and is reconciled at the next start; it may have printed, so it prints
  /// again marked as a reprint).
  var shouldStop: @Sendable () -> Bool { { [weak self] in self?.mustLeave ?? true } }

  /// Sleeps up to `seconds`, waking early when a stop is requested (or work arrives).
  func pause(_ seconds: TimeInterval) async {
    guard !isStopping else { return }
    await signal.wait(until: Date().addingTimeInterval(seconds))
  }

  /// nice 10 for the calling thread (Linux: setpriority on its thread id, read from
  /// /proc/thread-self, as Glibc's gettid is not visible to Swift).
  static func lowerThisThreadsPriority() {
    guard let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self"),
      let tid = id_t(link.split(separator: "/").last ?? "")
    else { return }
    _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), tid, 10)
  }

  /// Whether this daemon drives the printer, taking it when it is free (the daemon that drove it
  /// stopped or died): the jobs it left printing are then checked with the printer before
  /// anything is sent again. Not asked of the store: the claim that follows runs on the session
  /// that holds the printer (a lost one cannot claim, and its failure ends the session), and
  /// ``print(_:)`` asks before sending — a round trip per job fewer on PostgreSQL.
  private func holdsPrinter() async throws -> Bool {
    if store.holds(printer: printer.name) { return true }
    guard let recovered = try await store.own(printer: printer.name, maxCrashes: maxCrashes) else { return false }
    Self.reportTaken(printer.name, recovered: recovered, logger: logger)
    return true
  }

  /// Logs that this daemon drives `printer` now, with the jobs its last driver left printing
  /// (dead, or to be checked with the printer).
  static func reportTaken(_ printer: String, recovered: [Job], logger: Logger) {
    logger.info("this daemon now drives printer \(printer)")
    for job in recovered {
      if job.state == .dead {
        logger.error("job \(job.id) is dead: \(job.error ?? "")")
      } else {
        logger.info("job \(job.id) was left printing; it is checked with the printer before anything is resent")
      }
    }
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
  func process(_ job: Job) async {
    let started = Date()
    let outcome: Outcome
    do {
      outcome = .completed(cupsJobID: try await print(job))
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
      await record(.retry(failover.reason, at: Date()), of: job)
      return
    } catch {
      // Where the job goes from here is the queue's rule (`Job.afterFailedAttempt`).
      let permanent = (error as? ReceiptError)?.isPermanent ?? false
      let message = Self.describe(error)
      let now = Date()
      let next = job.afterFailedAttempt(
        permanent: permanent, maxAttempts: maxAttempts, now: now, jitter: Double.random(in: 0.75...1.25))
      switch (next.state, next.retryAt) {
      case (.queued, let at?):
        outcome = .retry(message, at: at)
        logger.warning(
          "job \(job.id) attempt \(job.attempts) failed, retrying in \(String(format: "%.1f", at.timeIntervalSince(now))) s: \(message)"
        )
      case (.dead, _):
        outcome = .dead(message)
        logger.error("job \(job.id) dead after \(job.attempts) attempts: \(message)")
      default:
        outcome = .failed(message)
        logger.warning("job \(job.id) failed: \(message)")
      }
    }
    await record(outcome, of: job)
  }

  /// Stores an outcome, retrying (0.5 s doubling to 30 s) while the store cannot write, until it
  /// works or the stop's grace period is over (then reconciliation at the next start decides).
  private func record(_ outcome: Outcome, of job: Job) async {
    var delay = 0.5
    while true {
      do {
        switch outcome {
        case .completed(let id):
          let hash = archive.flatMap { ArchiveFile.hash(job: job.id, in: $0) }
          try await store.complete(job.id, cupsJobID: id, documentSHA256: hash)
          outage.end()
          if let route = job.route { metrics.countPrintedTicket(route: route) }
        case .failed(let message): try await store.fail(job.id, error: message, retryAt: nil, state: .failed)
        case .retry(let message, let at):
          try await store.fail(job.id, error: message, retryAt: at, state: .queued)
          outage.begin(message)
        case .dead(let message):
          try await store.fail(job.id, error: message, retryAt: nil, state: .dead)
          outage.begin(message)
        }
        return
      } catch let lost as OwnershipLost {
        // The new owner reconciles the job with the printer; nothing more is recorded here.
        logger.error("\(lost)")
        return
      } catch {
        logger.error("cannot record the outcome of job \(job.id): \(error); trying again in \(delay) s")
        if mustLeave || Task.isCancelled { return }
        await pause(delay)
        delay = min(30, delay * 2)
      }
    }
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

}
