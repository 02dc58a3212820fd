import Foundation
package import Hummingbird
import HummingbirdCore
package import Logging
import NIOCore
import ReceiptKit
import ReceiptModel
import ServiceLifecycle
import UnixSignals

#if canImport(Glibc)
  import Glibc
#endif

/// The print-queue daemon: a durable job store, one worker per printer and the HTTP API.
///
/// One concurrency model: the HTTP server (Hummingbird on SwiftNIO), the printers' workers, the
/// archive sweeper and the printer watch are Services of Swift Service Lifecycle; their blocking
/// work runs on thread pools of their own (``BlockingPool``), the store is async to the edges,
/// and shutdown is the ServiceGroups': HTTP stops first, then the workers get their grace.
package final class ReceiptServer: Sendable {
  package let configuration: Configuration
  let store: any JobStore
  let engine: ReceiptEngine
  let metrics = ServerMetrics()
  let logger: Logger
  /// Open HTTP connections (idle ones are closed beyond `maxConnections`).
  let connections: ConnectionRegistry
  /// Previews and printer probes: blocking C work off the request threads, two at a time, 16
  /// waiting (`429` beyond).
  let blocking = BlockingPool(threads: 2, capacity: 16)
  /// The change feed of `GET /v1/events`.
  let hub: EventHub
  /// One template save at a time (history copy, then the file).
  let templateSaves = Locked(())
  /// The workers and background services while they run (between `start` and `stop`).
  private let running = Locked<Running?>(nil)
  /// Every printer as an IPP Everywhere printer (the IPP front), by name.
  let ippPrinters: [String: IPPPrinter]
  /// When the daemon started (IPP's clock).
  let startedAt = Date()

  private struct Running: Sendable {
    var workers: [PrintWorker]
    var group: ServiceGroup
    var task: Task<Void, Never>
  }

  /// The API contract (OpenAPI 3.1, `Sources/ReceiptServer/Resources/openapi.yaml`), served at
  /// `GET /openapi.yaml`.
  package static var openAPIDocument: [UInt8] { PackageResources.openapi_yaml }

  /// Opens the store and prepares the workers (nothing runs until `start`).
  package init(configuration: Configuration, logger: Logger = Logger(label: "receipt.server")) throws {
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
      throw ReceiptError(.unavailable, "\(error); \(Self.check(configuration.database))")
    }
    engine = try ReceiptEngine()
    let machine =
      (try? String(contentsOfFile: "/etc/machine-id", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
      ?? ProcessInfo.processInfo.hostName
    ippPrinters = Dictionary(configuration.printers.map { ($0.name, IPPPrinter($0, machine: machine)) }) { a, _ in a }
    // An accepted (retried, requeued) job wakes its printer's worker at once.
    store.observeWork { [weak self] printer in self?.wake(printer) }
    // Every committed change of a job, in commit order, to the event feed.
    store.observeChanges(JobEventFeed(hub: hub))
  }

  /// What to check when the store cannot be opened.
  static func check(_ database: String) -> String {
    ReceiptSettings.isDatabaseURL(database)
      ? "check that PostgreSQL runs and --db names a database this user may use"
      : "check --db and the directory's permissions and free space"
  }

  /// Why `printer`'s worker holds its queue (paper out, cover open), nil while it can print.
  func workerHold(_ printer: String) -> PrinterStatus? {
    running.withLock { $0?.workers.first { $0.printer.name == printer } }?.hold.withLock { $0 }
  }

  /// Wakes the worker of `printer`.
  private func wake(_ printer: String) {
    running.withLock { $0?.workers.first { $0.printer.name == printer } }?.wake()
  }

  /// Opens the store (one daemon per SQLite file: its lock), then runs one worker per printer,
  /// the archive sweeper and the printer watch, until ``stop()``. Each worker first takes its
  /// printer and checks the jobs a crash left printing with it.
  package func start() async throws {
    try await openStore()
    guard running.withLock({ $0 == nil }) else { return }
    hub.reopen()
    let workers = configuration.printers.map { printer in
      PrintWorker(
        printer: printer, store: store, engine: engine, templates: configuration.templates,
        maxAttempts: configuration.maxAttempts, logger: self.logger, metrics: metrics,
        archive: configuration.archiveDirectory, failoverAfter: configuration.failoverAfter,
        maxCrashes: configuration.maxCrashes, grace: configuration.shutdownGrace)
    }
    var services: [any Service] = [PrintWorkers(workers: workers)]
    if let archive = configuration.archiveDirectory {
      let (log, days) = (self.logger, configuration.archiveDays)
      services.append(
        PeriodicService(interval: .seconds(3600)) {
          let removed = ArchiveFile.sweep(archive, days: days)
          if removed > 0 { log.info("removed \(removed) archived documents older than \(days) days") }
        })
    }
    services.append(PeriodicService(interval: .seconds(300)) { [weak self] in _ = await self?.removeOldDocuments() })
    services.append(PrinterWatch(hub: hub) { [weak self] in (try? await self?.printerResponses()) ?? [] })
    var group = ServiceGroupConfiguration(
      services: services.map { .init(service: $0) }, gracefulShutdownSignals: [], logger: self.logger)
    // A worker gives its job `shutdownGrace`; nothing holds the stop up beyond that.
    let bound = Duration.seconds(configuration.shutdownGrace + 5)
    group.maximumGracefulShutdownDuration = bound
    group.maximumCancellationDuration = bound
    let serviceGroup = ServiceGroup(configuration: group)
    let logger = self.logger
    let task = Task {
      do { try await serviceGroup.run() } catch { logger.error("the workers stopped: \(error)") }
    }
    running.withLock { $0 = Running(workers: workers, group: serviceGroup, task: task) }
  }

  /// Removes the documents of document jobs that ended more than `documentDays` before `now`
  /// (their records stay); returns how many.
  func removeOldDocuments(now: Date = Date()) async -> Int {
    let cutoff = now.addingTimeInterval(-Double(configuration.documentDays) * 86_400)
    var count = 0
    while let ended = try? await store.sweepable(.documentsEndedBefore(cutoff), limit: 100), !ended.isEmpty {
      var progressed = false
      for job in ended {
        guard let (_, dropped) = try? await store.update(job.id, { $0.dropDocument() }), dropped else { continue }
        count += 1
        progressed = true
      }
      if !progressed { break }  // the store cannot write: the next pass tries again
    }
    if count > 0 {
      logger.info("removed the documents of \(count) jobs that ended over \(configuration.documentDays) days ago")
    }
    return count
  }

  /// Stops the workers: no new jobs are taken; each finishes the job in hand within the grace
  /// period (a job still waiting after it is left `printing` and reconciled at the next start).
  /// Returns when every worker has ended and the store recorded the clean stop.
  package func stop() async {
    hub.close()
    guard let running = running.withLock({ $0.take() }) else { return }
    await running.group.triggerGracefulShutdown()
    await running.task.value
    // The jobs still `printing` were left by this stop, not by a crash.
    await store.close()
  }

  /// Opens the store: takes the queue file's one-daemon lock (idempotent).
  private func openStore() async throws {
    do {
      try await store.open()
    } catch let error as StoreUnavailable {
      throw ReceiptError(.unavailable, "\(error); \(Self.check(configuration.database))")
    }
  }

  /// The Hummingbird application (routes, middleware, address).
  package func application(
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

  /// Serves until SIGTERM or SIGINT: the workers run (``start()``) while the HTTP server's
  /// ServiceGroup runs; on the signal the HTTP server stops first, then the workers finish their
  /// jobs in hand (``stop()``); then the function returns.
  package func run(
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in },
    onIPPRunning: @escaping @Sendable (Int) async -> Void = { _ in }
  ) async throws {
    Self.returnLargeBlocksToTheSystem()
    let files = Self.raiseFileLimit()
    if files < configuration.maxConnections + 64 {
      logger.warning(
        "the open-file limit is \(files), too low for maxConnections \(configuration.maxConnections); raise LimitNOFILE"
      )
    }
    // The queue file first: a second daemon on it stops at once, before any warm-up.
    try await openStore()
    // Dictionaries and fonts before the first request: the first German preview after
    // `/readyz` is as fast as the next.
    let (engine, templates) = (self.engine, configuration.templates)
    let warm = try await blocking.run { engine.warmUp(templates: templates) }
    logger.info(
      "warmed up in \(Int(warm.seconds * 1000)) ms: hyphenation \(warm.dictionaries.joined(separator: ", ")), \(warm.examples.count) example orders laid out"
    )
    try await start()
    var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
      .init(service: application(onServerRunning: onServerRunning))
    ]
    let advertising =
      configuration.ipp?.advertise == true
      ? IPPAdvertising(logger: logger) { [ippPrinters = self] port in ippPrinters.ippAdvertisements(port: port) } : nil
    let ipp = ippApplication { port in
      advertising?.listening(on: port)
      await onIPPRunning(port)
    }
    if let ipp { services.append(.init(service: ipp)) }
    services += ippServices(advertising: advertising).map { .init(service: $0) }
    var group = ServiceGroupConfiguration(
      services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
    // Clients that keep connections open cannot hold the shutdown up for ever.
    group.maximumGracefulShutdownDuration = .seconds(5)
    group.maximumCancellationDuration = .seconds(5)
    do {
      try await ServiceGroup(configuration: group).run()
    } catch {
      await stop()
      throw error
    }
    await stop()
  }
}

extension ReceiptServer {
  /// Blocks of 4 MiB or more (documents, their pages) come from and go back to the kernel
  /// (`mmap`): glibc otherwise raises this threshold to the size of each large block freed (up
  /// to 32 MiB) and keeps later ones in its heap, so twenty 30 MiB documents once left the daemon
  /// holding 1.5 GB after they were gone. Receipt pages (about 1.5 MB) stay in the heap.
  static func returnLargeBlocksToTheSystem() {
    // glibc's mallopt(M_MMAP_THRESHOLD = -3, bytes); <malloc.h> is not part of Swift's Glibc.
    typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
    _ = unsafeBitCast(symbol, to: Mallopt.self)(-3, 4 << 20)
  }

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
