import NIOCore
import NIOHTTPTypes
import ReceiptModel

/// Keeps clients from holding the daemon's connections:
/// - a request's head must arrive within `headerTimeout` of connecting or of the previous
///   answer, and the whole request within four times that; the idle timeout alone resets on
///   every byte, so clients that trickle bytes ("slowloris") would hold a connection for ever;
/// - when more than `maxConnections` are open, the connection that has waited longest without
///   a request is closed to make room, so idle connections (1,100 of them stopped the API
///   before) never keep a till from being answered. Connections in a request are never closed.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPRequestPart
  typealias InboundOut = HTTPRequestPart
  typealias OutboundIn = HTTPResponsePart
  typealias OutboundOut = HTTPResponsePart

  private let registry: ConnectionRegistry
  private let timeout: TimeAmount
  private var deadline: Scheduled<Void>?
  private var registered = false

  init(registry: ConnectionRegistry, headerTimeout: TimeAmount) {
    self.registry = registry
    self.timeout = headerTimeout
  }

  func handlerAdded(context: ChannelHandlerContext) {
    if context.channel.isActive { start(context) }
  }

  func channelActive(context: ChannelHandlerContext) {
    start(context)
    context.fireChannelActive()
  }

  private func start(_ context: ChannelHandlerContext) {
    guard !registered else { return }
    registered = true
    registry.opened(context.channel)
    arm(context, in: timeout)
  }

  func handlerRemoved(context: ChannelHandlerContext) { finish(context) }

  func channelInactive(context: ChannelHandlerContext) {
    finish(context)
    context.fireChannelInactive()
  }

  private func finish(_ context: ChannelHandlerContext) {
    disarm()
    if registered {
      registered = false
      registry.closed(context.channel)
    }
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    switch unwrapInboundIn(data) {
    case .head:
      registry.busy(context.channel)
      arm(context, in: timeout * 4)  // the rest of the request
    case .end: disarm()  // the answer is up to the daemon
    case .body: break
    }
    context.fireChannelRead(data)
  }

  func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
    if case .end = unwrapOutboundIn(data) {  // answered: waiting for the next request
      registry.idle(context.channel)
      arm(context, in: timeout)
    }
    context.write(data, promise: promise)
  }

  private func arm(_ context: ChannelHandlerContext, in amount: TimeAmount) {
    disarm()
    let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
    deadline = context.eventLoop.scheduleTask(in: amount) { bound.value.close(promise: nil) }
  }

  private func disarm() {
    deadline?.cancel()
    deadline = nil
  }
}

/// The daemon's open connections and which of them wait without a request.
final class ConnectionRegistry: Sendable {
  private struct Entry {
    var channel: any Channel
    /// When it last became idle (a counter, not a clock); nil while it is in a request.
    var idleSince: UInt64?
  }

  private struct State {
    var entries: [ObjectIdentifier: Entry] = [:]
    var tick: UInt64 = 0
  }

  private let state = Locked(State())
  let maxConnections: Int

  init(maxConnections: Int) {
    self.maxConnections = maxConnections
  }

  /// Open connections.
  var count: Int { state.withLock { $0.entries.count } }

  func opened(_ channel: any Channel) {
    let evict: (any Channel)? = state.withLock { state in
      state.tick += 1
      state.entries[ObjectIdentifier(channel)] = Entry(channel: channel, idleSince: state.tick)
      guard state.entries.count > maxConnections else { return nil }
      let oldest = state.entries.filter { $0.key != ObjectIdentifier(channel) && $0.value.idleSince != nil }
        .min { $0.value.idleSince! < $1.value.idleSince! }
      guard let oldest else { return nil }
      state.entries[oldest.key] = nil
      return oldest.value.channel
    }
    evict?.close(promise: nil)
  }

  func busy(_ channel: any Channel) {
    state.withLock { $0.entries[ObjectIdentifier(channel)]?.idleSince = nil }
  }

  func idle(_ channel: any Channel) {
    state.withLock { state in
      state.tick += 1
      state.entries[ObjectIdentifier(channel)]?.idleSince = state.tick
    }
  }

  func closed(_ channel: any Channel) {
    _ = state.withLock { $0.entries.removeValue(forKey: ObjectIdentifier(channel)) }
  }
}
