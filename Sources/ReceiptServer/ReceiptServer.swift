import Foundation
public import Hummingbird
import HummingbirdCore
public import Logging
import NIOCore
import ReceiptKit
import ServiceLifecycle
import Synchronization
import UnixSignals

#if canImport(Glibc)
  import Glibc
#endif

/// The print-queue daemon: a durable job store, one worker per printer and the HTTP API.
// @unchecked: `workers` and `databaseLock` change only under `lock` (start/stop run on any
// thread); everything else is immutable after init.
public final class ReceiptServer: @unchecked Sendable {
  public let configuration: Configuration
  let store: JobStore
  let engine: ReceiptEngine
  let metrics = ServerMetrics()
  let logger: Logger
  /// Open HTTP connections (idle ones are closed beyond `maxConnections`).
  let connections: ConnectionRegistry
  /// Previews and printer probes: blocking C work off the request threads.
  let blocking = BlockingExecutor(name: "receipt blocking", threads: 2, capacity: 16)
  private let lock = NSLock()
  private var workers: [PrintWorker] = []
  private var sweeper: PeriodicThread?
  private var printerWatch: PeriodicThread?
  /// The change feed of `GET /v1/events`.
  let hub: EventHub
  /// One template save at a time (history copy, then the file).
  let templateSaves = Mutex(())
  /// Held while the workers run: one daemon per queue file.
  private var databaseLock: DatabaseLock?

  /// The API contract (OpenAPI 3.1, `Sources/ReceiptServer/Resources/openapi.yaml`), served at
  /// `GET /openapi.yaml`.
  public static var openAPIDocument: [UInt8] { PackageResources.openapi_yaml }

  /// Opens the store and prepares the workers (nothing runs until `start`).
  public init(configuration: Configuration, logger: Logger = Logger(label: "receipt.server")) throws {
    try configuration.validate()
    self.configuration = configuration
    self.logger = logger
    connections = ConnectionRegistry(maxConnections: configuration.maxConnections)
    hub = EventHub(maxSubscribers: configuration.eventStreamLimit)
    do {
      if ReceiptSettings.isDatabaseURL(configuration.database) {
        store = try PostgresJobStore(url: PostgresURL(configuration.database), logger: logger)
      } else {
        store = try SQLiteJobStore(path: configuration.database)
      }
    } catch let error as StoreUnavailable {
      let check =
        ReceiptSettings.isDatabaseURL(configuration.database)
        ? "check that PostgreSQL runs and --db names a database this user may use"
        : "check --db and the directory's permissions and free space"
      throw ReceiptError(.unavailable, "\(error); \(check)")
    }
    engine = try ReceiptEngine()
    // An accepted (retried, requeued) job wakes its printer's worker at once.
    store.observeWork { [weak self] printer in self?.wake(printer) }
    // Every committed change of a job, in commit order, to the event feed.
    store.observeChanges(JobEventFeed(hub: hub))
  }

  /// Wakes the worker of `printer`.
  private func wake(_ printer: String) {
    lock.lock()
    let worker = workers.first { $0.printer.name == printer }
    lock.unlock()
    worker?.wake()
  }

  /// Takes the queue file's lock (one daemon per file), reconciles jobs a crash left mid-print,
  /// then starts one worker per printer.
  public func start() throws {
    lock.lock()
    defer { lock.unlock() }
    // One daemon per SQLite file; PostgreSQL is shared, and printers are owned one by one.
    if databaseLock == nil, store is SQLiteJobStore {
      databaseLock = try DatabaseLock(database: configuration.database)
    }
    try recover()
    if let archive = configuration.archiveDirectory, sweeper == nil {
      let (logger, days) = (logger, configuration.archiveDays)
      sweeper = ArchiveSweeper.start(directory: archive, days: days) { removed in
        logger.info("removed \(removed) archived documents older than \(days) days")
      }
    }
    if printerWatch == nil {
      hub.reopen()
      printerWatch = PrinterWatch.start(hub: hub) { [weak self] in (try? self?.printerResponses()) ?? [] }
    }
    for printer in configuration.printers {
      let worker = PrintWorker(
        printer: printer, store: store, engine: engine, templates: configuration.templates,
        maxAttempts: configuration.maxAttempts, logger: logger, metrics: metrics,
        archive: configuration.archiveDirectory, failoverAfter: configuration.failoverAfter,
        maxCrashes: configuration.maxCrashes)
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
    sweeper?.stop()
    sweeper = nil
    printerWatch?.stop()
    printerWatch = nil
    hub.close()
    lock.unlock()
    running.forEach { $0.stop(grace: configuration.shutdownGrace) }
    running.forEach { $0.join() }
    lock.lock()
    defer { lock.unlock() }
    if databaseLock != nil {
      // The jobs still `printing` were left by this stop, not by a crash.
      do { try store.markCleanShutdown() } catch { logger.error("cannot record the clean shutdown: \(error)") }
      databaseLock = nil
    }
  }

  /// Jobs found `printing` at start were interrupted. They go back to the head of their queue
  /// with their attempt count; the worker then checks before sending again: a directory
  /// printer's file, or a CUPS job of the same name that completed or may still print, means it
  /// is not sent a second time. Socket printers cannot be asked, so for them it is at least once.
  /// A job that was printing when the daemon died counts a crash; after `maxCrashes` it is dead,
  /// so a job that crashes the renderer cannot stop its printer's queue.
  func recover() throws {
    for job in try store.recover(maxCrashes: configuration.maxCrashes, now: Date()) {
      if job.state == .dead {
        logger.error("job \(job.id) is dead: \(job.error ?? "")")
      } else {
        logger.info("job \(job.id) was interrupted; it is checked with its printer before anything is resent")
      }
    }
  }

  /// The Hummingbird application (routes, middleware, address).
  public func application(
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
  ) -> some ApplicationProtocol {
    let router = Router()
    // Outermost first: Host (DNS rebinding), Origin (other web pages; CORS headers also on error
    // answers), problems as problem+json, 405, tokens.
    router.middlewares.add(HostMiddleware(configuration: configuration))
    router.middlewares.add(OriginMiddleware(origins: configuration.corsOrigins))
    router.middlewares.add(ProblemMiddleware())
    router.middlewares.add(MethodNotAllowedMiddleware())
    router.middlewares.add(BearerTokenMiddleware(tokens: configuration.tokens))
    addRoutes(to: router)
    let headerTimeout = TimeAmount.milliseconds(Int64(configuration.headerTimeout * 1000))
    let registry = connections
    let http1 = HTTP1Channel.Configuration(
      additionalChannelHandlers: [ConnectionGuard(registry: registry, headerTimeout: headerTimeout)],
      idleTimeout: .milliseconds(Int64(configuration.idleTimeout * 1000)))
    // Idle connections beyond maxConnections are closed by ConnectionGuard; the hard cap only
    // protects file descriptors from connections that are all in a request.
    return Application(
      router: router, server: .http1(configuration: http1),
      configuration: .init(
        address: .hostname(configuration.host, port: configuration.port),
        availableConnectionsDelegate: MaximumAvailableConnections(configuration.maxConnections * 4, logger: logger)),
      onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? 0) },
      logger: logger)
  }

  /// Serves until SIGTERM or SIGINT, under Swift Service Lifecycle: the HTTP server stops first,
  /// then the workers finish their jobs in hand; then the function returns.
  public func run(onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
    let files = Self.raiseFileLimit()
    if files < configuration.maxConnections + 64 {
      logger.warning(
        "the open-file limit is \(files), too low for maxConnections \(configuration.maxConnections); raise LimitNOFILE"
      )
    }
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

extension ReceiptServer {
  /// Raises the soft open-file limit to the hard one (the usual soft limit is 1024) and returns
  /// it, so `maxConnections` connections plus files and CUPS sockets fit.
  static func raiseFileLimit() -> Int {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
    if limit.rlim_cur < limit.rlim_max {
      limit.rlim_cur = limit.rlim_max
      _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
    return Int(clamping: limit.rlim_cur)
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
