import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ReceiptKit
@_spi(Internals) import ReceiptModel

/// The JSON API and the web app, a part of the daemon on the API's listener: jobs, orders,
/// previews, printers, templates, examples, the event feed and the designer. It has what it
/// needs and nothing more — the configuration, the store, the engine for previews, the blocking
/// pool, the metrics, the event hub and the printer probe.
struct HTTPAPI: Sendable {
  let configuration: ReceiptServer.Configuration
  let store: any JobStore
  let engine: ReceiptEngine
  let logger: Logger
  let metrics: ServerMetrics
  /// Previews and printer probes run here, never on a request's thread (`429` when it is full).
  let blocking: BlockingPool
  /// The change feed of `GET /v1/events`.
  let hub: EventHub
  /// What the printers are doing (`GET /v1/printers`).
  let probe: PrinterProbe
  /// The servers printers poll: Star CloudPRNT at `/cloudprnt`, Epson Server Direct Print at
  /// `/epson-sdp` (their own credentials, not the API's tokens).
  let polling: PollingFronts?
  /// Web shops' signed webhooks at `/v1/webhooks/NAME` (their signatures, not the API's tokens).
  let webhooks: WebhookFront?
  /// Open connections (idle and stalled ones are closed beyond `maxConnections`).
  let connections: ConnectionRegistry
  /// One template save at a time (history copy, then the file).
  let templateSaves = Locked(())

  init(
    configuration: ReceiptServer.Configuration, store: any JobStore, engine: ReceiptEngine, logger: Logger,
    metrics: ServerMetrics, blocking: BlockingPool, hub: EventHub, probe: PrinterProbe,
    polling: PollingFronts? = nil, webhooks: WebhookFront? = nil
  ) {
    self.polling = polling
    self.webhooks = webhooks
    self.configuration = configuration
    self.store = store
    self.engine = engine
    self.logger = logger
    self.metrics = metrics
    self.blocking = blocking
    self.hub = hub
    self.probe = probe
    connections = ConnectionRegistry(maxConnections: configuration.maxConnections)
  }

  /// The API listener's application (routes, middleware, address).
  func application(
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
    let http1 = HTTP1Channel.Configuration(
      additionalChannelHandlers: [ConnectionGuard(registry: connections, headerTimeout: headerTimeout)],
      idleTimeout: .milliseconds(Int64(configuration.idleTimeout * 1000)))
    // Idle connections beyond maxConnections are closed by ConnectionGuard; the hard cap only
    // protects file descriptors from connections that are all in a request.
    return Application(
      router: router, server: .http1(configuration: http1),
      configuration: .init(
        address: .hostname(ListenAddress.bindHost(configuration.host), port: configuration.port),
        availableConnectionsDelegate: MaximumAvailableConnections(configuration.maxConnections * 4, logger: logger)),
      onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? 0) },
      logger: logger)
  }
}
