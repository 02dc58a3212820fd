import Foundation
import Logging
import ReceiptKit

/// Prints one printer's jobs strictly in order on its own thread: claims the head of the queue,
/// renders and sends it, and records the outcome. Transient failures (printer or CUPS
/// unavailable, job stopped) retry with exponential backoff and jitter while the jobs behind wait;
/// permanent ones (template or data errors) fail at once; after `maxAttempts` a job is dead.
final class PrintWorker: @unchecked Sendable {
  let printer: PrinterConfig
  let store: JobStore
  let engine: ReceiptEngine
  let templates: URL
  let maxAttempts: Int
  let logger: Logger
  let metrics: ServerMetrics
  private let stopLock = NSLock()
  private var stopped = false
  private var thread: Thread?

  init(
    printer: PrinterConfig, store: JobStore, engine: ReceiptEngine, templates: URL, maxAttempts: Int, logger: Logger,
    metrics: ServerMetrics
  ) {
    self.printer = printer
    self.store = store
    self.engine = engine
    self.templates = templates
    self.maxAttempts = maxAttempts
    self.logger = logger
    self.metrics = metrics
  }

  func start() {
    let thread = Thread { [self] in run() }
    thread.name = "printer \(printer.name)"
    self.thread = thread
    thread.start()
  }

  func stop() {
    stopLock.lock()
    stopped = true
    stopLock.unlock()
  }

  private var isStopped: Bool {
    stopLock.lock()
    defer { stopLock.unlock() }
    return stopped
  }

  private func run() {
    while !isStopped {
      do {
        if let job = try store.claimNext(printer: printer.name, now: Date()) {
          process(job)
        } else {
          Thread.sleep(forTimeInterval: 0.05)
        }
      } catch {
        logger.error("queue store failed: \(error)")
        Thread.sleep(forTimeInterval: 1)
      }
    }
  }

  /// Renders and prints one claimed job and records the result.
  func process(_ job: Job) {
    let started = Date()
    do {
      let cupsID = try print(job)
      try store.complete(job.id, cupsJobID: cupsID, now: Date())
      metrics.observePrint(seconds: Date().timeIntervalSince(started))
      logger.info("job \(job.id) printed on \(printer.name)")
    } catch let error as ReceiptError where error.stage == .data || error.stage == .input {
      try? store.fail(job.id, error: error.message, retryAt: nil, state: .failed, now: Date())
      logger.warning("job \(job.id) failed: \(error.message)")
    } catch {
      let message = (error as? ReceiptError)?.message ?? "\(error)"
      if job.attempts >= maxAttempts {
        try? store.fail(job.id, error: message, retryAt: nil, state: .dead, now: Date())
        logger.error("job \(job.id) dead after \(job.attempts) attempts: \(message)")
      } else {
        let delay = min(60, 0.5 * pow(2, Double(job.attempts - 1))) * Double.random(in: 0.75...1.25)
        try? store.fail(job.id, error: message, retryAt: Date().addingTimeInterval(delay), state: .queued, now: Date())
        logger.warning(
          "job \(job.id) attempt \(job.attempts) failed, retrying in \(String(format: "%.1f", delay)) s: \(message)")
      }
    }
  }

  /// Sends a job; returns the CUPS job id for CUPS printers.
  private func print(_ job: Job) throws -> Int? {
    let rendered = try engine.templateDocument(
      template: job.template, data: job.data, templates: templates, options: TemplateOptions(locale: job.locale))
    var document = rendered.document
    document.title = "receipt-job-\(job.id)"
    switch printer.target {
    case .directory(let directory):
      let file = directory.appendingPathComponent(Self.fileName(job))
      if FileManager.default.fileExists(atPath: file.path) { return nil }  // printed before a crash
      let pdf = try engine.render(document, format: .pdf).parts[0]
      let partial = file.appendingPathExtension("partial")
      try pdf.write(to: partial)
      try FileManager.default.moveItem(at: partial, to: file)  // atomic: a file exists only when complete
      return nil
    case .socket(let uri):
      _ = try engine.print(document, request: PrintRequest(printer: uri, copies: job.copies))
      return nil
    case .cups(let queue, let server):
      let result = try engine.print(
        document,
        request: PrintRequest(
          printer: queue, copies: job.copies, wait: true, server: server, jobName: "receipt-job-\(job.id)"))
      return result.jobID
    }
  }

  /// A directory printer's file for a job: its sequence keeps the files in print order.
  static func fileName(_ job: Job) -> String { String(format: "%08lld-%@.pdf", job.sequence, job.id) }
}
