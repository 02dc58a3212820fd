import Foundation
import Hummingbird
import Logging
import ReceiptKit

/// The print-queue daemon: a durable job store, one worker per printer and the HTTP API.
public final class ReceiptServer: @unchecked Sendable {
  /// How the daemon is set up.
  public struct Configuration: Sendable {
    public var host: String
    public var port: Int
    /// The SQLite file of the queue.
    public var database: String
    public var templates: URL
    public var printers: [PrinterConfig]
    /// The printer of jobs that name none.
    public var defaultPrinter: String?
    public var maxAttempts: Int
    /// Largest request body.
    public var maxBodyBytes: Int
    /// Required as `Authorization: Bearer …` when set (and always off loopback).
    public var token: String?

    /// Creates a configuration; the daemon listens on 127.0.0.1 by default.
    public init(
      host: String = "127.0.0.1", port: Int = 8631, database: String = "receipt-queue.sqlite", templates: URL,
      printers: [PrinterConfig], defaultPrinter: String? = nil, maxAttempts: Int = 8, maxBodyBytes: Int = 1 << 20,
      token: String? = nil
    ) {
      self.host = host
      self.port = port
      self.database = database
      self.templates = templates
      self.printers = printers
      self.defaultPrinter = defaultPrinter ?? printers.first?.name
      self.maxAttempts = maxAttempts
      self.maxBodyBytes = maxBodyBytes
      self.token = token
    }
  }

  public let configuration: Configuration
  let store: JobStore
  let engine: ReceiptEngine
  let metrics = ServerMetrics()
  let logger: Logger
  private var workers: [PrintWorker] = []

  /// Opens the store and prepares the workers (nothing runs until `start`).
  public init(configuration: Configuration, logger: Logger = Logger(label: "receipt.server")) throws {
    let loopback = ["127.0.0.1", "::1", "localhost"].contains(configuration.host)
    guard loopback || configuration.token != nil else {
      throw ReceiptError(
        .data, "listening on \(configuration.host) needs a bearer token (--token); only 127.0.0.1 is open without one")
    }
    self.configuration = configuration
    self.logger = logger
    store = try SQLiteJobStore(path: configuration.database)
    engine = try ReceiptEngine()
  }

  /// Reconciles jobs a crash left mid-print, then starts one worker per printer.
  public func start() throws {
    try recover()
    for printer in configuration.printers {
      let worker = PrintWorker(
        printer: printer, store: store, engine: engine, templates: configuration.templates,
        maxAttempts: configuration.maxAttempts, logger: logger, metrics: metrics)
      workers.append(worker)
      worker.start()
    }
  }

  /// Stops the workers (each finishes the job it is printing).
  public func stop() {
    workers.forEach { $0.stop() }
  }

  /// A job found `printing` at start was interrupted. Before anything is resent it is checked:
  /// a directory printer's file, or a CUPS job with its id in the job name, that exists means it
  /// printed (completed); otherwise it goes back to the head of its queue. Socket printers cannot
  /// be asked, so their interrupted jobs are resent (at least once).
  func recover() throws {
    for job in try store.interrupted() {
      let printer = configuration.printers.first { $0.name == job.printer }
      var printed = false
      switch printer?.target {
      case .directory(let directory)?:
        printed = FileManager.default.fileExists(
          atPath: directory.appendingPathComponent(PrintWorker.fileName(job)).path)
      case .cups(let queue, let server)?:
        printed = (try? engine.cupsJobPrinted(named: "receipt-job-\(job.id)", queue: queue, server: server)) ?? false
      default:
        printed = false
      }
      if printed {
        try store.complete(job.id, cupsJobID: nil, now: Date())
        logger.info("job \(job.id) had printed before the restart; marked completed")
      } else {
        try store.requeue(job.id, now: Date())
        logger.info("job \(job.id) was interrupted; queued again")
      }
    }
  }

  /// The Hummingbird application (routes, middleware, address).
  public func application() -> some ApplicationProtocol {
    let router = Router()
    router.middlewares.add(ProblemMiddleware())
    addRoutes(to: router)
    return Application(
      router: router, configuration: .init(address: .hostname(configuration.host, port: configuration.port)),
      logger: logger)
  }

  /// Starts the workers and serves until the process is stopped.
  public func run() async throws {
    try start()
    defer { stop() }
    try await application().runService()
  }
}
