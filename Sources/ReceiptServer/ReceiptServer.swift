import Foundation
import Hummingbird
import Logging
import ReceiptKit
import ServiceLifecycle

/// The print-queue daemon: a durable job store, one worker per printer and the HTTP API.
public final class ReceiptServer: @unchecked Sendable {
  public let configuration: Configuration
  let store: JobStore
  let engine: ReceiptEngine
  let metrics = ServerMetrics()
  let logger: Logger
  private let lock = NSLock()
  private var workers: [PrintWorker] = []

  /// The API contract (OpenAPI 3.1, `Sources/ReceiptServer/Resources/openapi.yaml`), served at
  /// `GET /openapi.yaml`.
  public static var openAPIDocument: [UInt8] { PackageResources.openapi_yaml }

  /// Opens the store and prepares the workers (nothing runs until `start`).
  public init(configuration: Configuration, logger: Logger = Logger(label: "receipt.server")) throws {
    try configuration.validate()
    self.configuration = configuration
    self.logger = logger
    store = try SQLiteJobStore(path: configuration.database)
    engine = try ReceiptEngine()
  }

  /// Reconciles jobs a crash left mid-print, then starts one worker per printer.
  public func start() throws {
    try recover()
    lock.lock()
    defer { lock.unlock() }
    for printer in configuration.printers {
      let worker = PrintWorker(
        printer: printer, store: store, engine: engine, templates: configuration.templates,
        maxAttempts: configuration.maxAttempts, logger: logger, metrics: metrics)
      workers.append(worker)
      worker.start()
    }
  }

  /// Stops the workers: no new jobs are taken; each finishes the job in hand within the grace
  /// period (a job still waiting after it is left `printing` and reconciled at the next start).
  /// Returns when every worker has ended.
  public func stop() {
    lock.lock()
    let running = workers
    workers = []
    lock.unlock()
    running.forEach { $0.stop(grace: configuration.shutdownGrace) }
    running.forEach { $0.join() }
  }

  /// Jobs found `printing` at start were interrupted. They go back to the head of their queue
  /// with their attempt count; the worker then checks before sending again: a directory
  /// printer's file, or a CUPS job of the same name that completed or may still print, means it
  /// is not sent a second time. Socket printers cannot be asked, so for them it is at least once.
  func recover() throws {
    for job in try store.interrupted() {
      try store.requeue(job.id, now: Date())
      logger.info("job \(job.id) was interrupted; it is checked with its printer before anything is resent")
    }
  }

  /// The Hummingbird application (routes, middleware, address).
  public func application(
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
  ) -> some ApplicationProtocol {
    let router = Router()
    if !configuration.corsOrigins.isEmpty {  // outermost: error responses get CORS headers too
      router.middlewares.add(CORSAllowListMiddleware(origins: configuration.corsOrigins))
    }
    router.middlewares.add(ProblemMiddleware())
    router.middlewares.add(MethodNotAllowedMiddleware())
    router.middlewares.add(BearerTokenMiddleware(tokens: configuration.tokens))
    addRoutes(to: router)
    return Application(
      router: router, configuration: .init(address: .hostname(configuration.host, port: configuration.port)),
      onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? 0) },
      logger: logger)
  }

  /// Serves until SIGTERM or SIGINT, under Swift Service Lifecycle: the HTTP server stops first,
  /// then the workers finish their jobs in hand; then the function returns.
  public func run(onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
    try start()
    var group = ServiceGroupConfiguration(
      services: [
        .init(service: WorkersService(server: self)), .init(service: application(onServerRunning: onServerRunning)),
      ],
      gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
    // Clients that keep connections open cannot hold the shutdown up for ever.
    let bound = Duration.seconds(configuration.shutdownGrace + 5)
    group.maximumGracefulShutdownDuration = bound
    group.maximumCancellationDuration = bound
    try await ServiceGroup(configuration: group).run()
  }
}

/// The printers' workers as a service: on graceful shutdown (after the HTTP server, which is
/// listed after it and so stops first) it stops them and waits for the jobs in hand.
struct WorkersService: Service {
  let server: ReceiptServer

  func run() async throws {
    try? await gracefulShutdown()
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
      Thread.detachNewThread {
        server.stop()
        done.resume()
      }
    }
  }
}
