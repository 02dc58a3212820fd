import Foundation
package import Hummingbird
import HummingbirdCore
package import Logging
import NIOCore
import ReceiptKit
import ReceiptModel
import ServiceLifecycle
import UnixSignals

/// The print-queue daemon, wired from its parts: the durable job store, the printing side
/// (``QueueWorkers``: a worker per printer and the sweepers), the JSON API and web app (this
/// type's routes), the IPP printers (``IPPFront``) and the event feed (``EventHub``).
///
/// One concurrency model: every long-running part is a Service of the one ServiceGroup
/// ``run(onServerRunning:onIPPRunning:)`` runs; their blocking work runs on thread pools of their
/// own (``BlockingPool``), and the store is async to the edges. On SIGTERM the group stops them
/// in reverse order: the event streams end, the listeners stop taking requests, then the workers
/// get their grace and the store records the clean stop.
package final class ReceiptServer: Sendable {
  package let configuration: Configuration
  let store: any JobStore
  let engine: ReceiptEngine
  let metrics = ServerMetrics()
  let logger: Logger
  /// Previews and printer probes: blocking C work off the request threads, two at a time, 16
  /// waiting (`429` beyond).
  let blocking = BlockingPool(threads: 2, capacity: 16)
  /// The change feed of `GET /v1/events`.
  let hub: EventHub
  /// The JSON API and the web app.
  let api: HTTPAPI
  /// The printing side: a worker per printer, the sweepers.
  let workers: QueueWorkers
  /// The IPP Everywhere / AirPrint printers.
  let ipp: IPPFront
  /// What the printers are doing (`GET /v1/printers`, the printer watch).
  let probe: PrinterProbe
  /// When a stop began: every part logs its end against it.
  let stopClock = StopClock()

  /// The API contract (OpenAPI 3.1, `Sources/ReceiptServer/Resources/openapi.yaml`), served at
  /// `GET /openapi.yaml`.
  package static var openAPIDocument: [UInt8] { PackageResources.openapi_yaml }

  /// Opens the store and wires the parts (nothing runs until `run`).
  package init(configuration: Configuration, logger: Logger = Logger(label: "receipt.server")) throws {
    try configuration.validate()
    self.configuration = configuration
    self.logger = logger
    let hub = EventHub(maxSubscribers: configuration.eventStreamLimit)
    self.hub = hub
    let store: any JobStore
    do {
      if ReceiptSettings.isDatabaseURL(configuration.database) {
        store = try PostgresJobStore(url: PostgresURL(configuration.database), logger: logger)
      } else {
        store = try SQLiteJobStore(path: configuration.database)
      }
    } catch let error as StoreUnavailable {
      throw ReceiptError(.unavailable, "\(error); \(Self.check(configuration.database))")
    }
    self.store = store
    let engine = try ReceiptEngine()
    self.engine = engine
    let polled = PolledPrinters(
      printers: configuration.printers, pollTimeout: configuration.pollTimeout,
      confirmTimeout: configuration.confirmTimeout)
    let probe = PrinterProbe(
      configuration: configuration, store: store, engine: engine, blocking: blocking, polled: polled)
    self.probe = probe
    let workers = QueueWorkers(
      configuration: configuration, store: store, engine: engine, logger: logger, metrics: metrics, hub: hub,
      polled: polled, stopClock: stopClock, look: { (try? await probe.responses()) ?? [] })
    self.workers = workers
    ipp = IPPFront(
      configuration: configuration, store: store, logger: logger, security: try IPPFront.security(configuration)
    ) { workers.hold(of: $0) }
    api = HTTPAPI(
      configuration: configuration, store: store, engine: engine, logger: logger, metrics: metrics, blocking: blocking,
      hub: hub, probe: probe, polling: PollingFronts(polled: polled, store: store, logger: logger),
      webhooks: WebhookFront(
        webhooks: configuration.webhooks, configuration: configuration, store: store, metrics: metrics,
        logger: logger))
    // The queue's wake-ups reach the printer's worker at once. Weakly: the workers hold the
    // store, and a cycle would keep both — and the daemon's thread pools — past the daemon
    // (ServerLifetimeTests).
    store.observeWork { [weak workers] printer in workers?.wake(printer) }
    // Every committed change of a job, in commit order, to the event feed.
    store.observeChanges(JobEventFeed(hub: hub))
  }

  /// What to check when the store cannot be opened.
  static func check(_ database: String) -> String {
    ReceiptSettings.isDatabaseURL(database)
      ? "check that PostgreSQL runs and --db names a database this user may use"
      : "check --db and the directory's permissions and free space"
  }

  /// Opens the store: takes the queue file's one-daemon lock (idempotent).
  package func openStore() async throws {
    do {
      try await store.open()
    } catch let error as StoreUnavailable {
      throw ReceiptError(.unavailable, "\(error); \(Self.check(configuration.database))")
    }
  }

  /// The API listener's application (for the daemon's ServiceGroup and the tests' HTTP client).
  package func application(
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
  ) -> some ApplicationProtocol {
    api.application(onServerRunning: onServerRunning)
  }

  /// Serves until SIGTERM or SIGINT, every part a Service of one ServiceGroup, in the order they
  /// start — the workers, the IPP printers' services and listener, the API, the stop's marker
  /// (which ends the event streams) — and stop, the other way round: streams end, the listeners
  /// take no more requests, then the workers finish their jobs in hand within `shutdownGrace`
  /// and the store records the clean stop. Each part logs its end against the stop's clock
  /// (``StopClock``).
  package func run(
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in },
    onIPPRunning: @escaping @Sendable (Int) async -> Void = { _ in }
  ) async throws {
    ProcessTuning.returnLargeBlocksToTheSystem()
    let files = ProcessTuning.raiseFileLimit()
    if files < configuration.maxConnections + 64 {
      logger.warning(
        "the open-file limit is \(files), too low for maxConnections \(configuration.maxConnections); raise LimitNOFILE"
      )
    }
    // The store's background work (PostgreSQL's pool and listener) runs while everything else
    // does, and stops after it.
    try await withThrowingTaskGroup(of: Void.self) { running in
      if let work = store.backgroundWork { running.addTask { await work() } }
      defer { running.cancelAll() }
      try await serve(onServerRunning: onServerRunning, onIPPRunning: onIPPRunning)
    }
  }

  private func serve(
    onServerRunning: @escaping @Sendable (Int) async -> Void, onIPPRunning: @escaping @Sendable (Int) async -> Void
  ) async throws {
    // The queue file first: a second daemon on it stops at once, before any warm-up.
    try await openStore()
    // Dictionaries and fonts before the first request: the first German preview after
    // `/readyz` is as fast as the next.
    let (engine, templates) = (self.engine, configuration.templates)
    let warm = try await blocking.run { engine.warmUp(templates: templates) }
    logger.info(
      "warmed up in \(Int(warm.seconds * 1000)) ms: hyphenation \(warm.dictionaries.joined(separator: ", ")), \(warm.examples.count) example orders laid out"
    )
    if let level = ReceiptEngine.pdfStreamDeflateLevel, level != 0 {
      logger.warning(
        "PDF streams are compressed at zlib level class \(level), not the fastest: this executable does not define deflateInit_ (target CDeflateLevel); PDFs are ~15 % slower"
      )
    }
    // The printers taken and their jobs left printing checked before anything listens.
    await workers.recover()
    var services: [(name: String, service: any Service)] = [("the printers", workers)]
    let advertising =
      configuration.ipp?.advertise == true
      ? IPPAdvertising(logger: logger) { [ipp] in ipp.advertisements(port: $0) } : nil
    services += ipp.services(advertising: advertising).map {
      (($0 as? any CustomStringConvertible)?.description ?? "IPP's \(type(of: $0))", $0)
    }
    if let listener = ipp.application(onServerRunning: { port in
      advertising?.listening(on: port)
      await onIPPRunning(port)
    }) {
      services.append(("the IPP listener", listener))
    }
    services.append(("the API listener", application(onServerRunning: onServerRunning)))
    let (clock, logger) = (stopClock, self.logger)
    var parts = services.map { LoggedService(name: $0.name, service: $0.service, clock: clock, logger: logger) }
    parts.append(
      LoggedService(
        name: "the event streams",
        service: StopMarker(clock: clock, hub: hub, logger: logger, grace: configuration.shutdownGrace),
        clock: clock, logger: logger))
    var group = ServiceGroupConfiguration(
      services: parts.map { .init(service: $0) }, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
    // The workers' grace, and a little for the listeners: nothing holds the stop up beyond it.
    group.maximumGracefulShutdownDuration = .seconds(configuration.shutdownGrace + 10)
    group.maximumCancellationDuration = .seconds(5)
    try await ServiceGroup(configuration: group).run()
    if let milliseconds = clock.milliseconds { logger.info("stopped in \(milliseconds) ms") }
  }
}
