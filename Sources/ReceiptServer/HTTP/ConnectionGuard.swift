import NIOCore
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
@_spi(Internals) import ReceiptModel

/// Keeps clients from holding the daemon's connections:
/// - a request's head must arrive within `headerTimeout` of connecting or of the previous
///   answer, and the whole request within four times that; the idle timeout alone resets on
///   every byte, so clients that trickle bytes ("slowloris") would hold a connection for ever;
/// - when more than `maxConnections` are open, the connection that has waited longest without
///   a request is closed to make room, so idle connections (1,100 of them stopped the API
///   before) never keep a till from being answered; when none is idle, the slowest of those
///   still sending a request below ``ConnectionRegistry/minimumBodyRate`` (520 connections each
///   holding a body back locked the IPP printers out for 36 s). Requests being answered are
///   never closed.
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
    // The request head's form is settled before it becomes an HTTPTypes request.
    let pipeline = context.pipeline.syncOperations
    if let codec = try? pipeline.handler(type: HTTP1ToHTTPServerCodec.self) {
      try? pipeline.addHandler(RequestHeadNormalizer(), position: .before(codec))
    }
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
    case .end:
      disarm()  // the answer is up to the daemon
      registry.answering(context.channel)
    case .body(let bytes): registry.received(context.channel, bytes: bytes.readableBytes)
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

/// The daemon's open connections: which of them wait without a request, and how fast those in
/// the middle of a request send it.
final class ConnectionRegistry: Sendable {
  private struct Entry {
    var channel: any Channel
    /// When it last became idle (a counter, not a clock); nil while it is in a request.
    var idleSince: UInt64?
    /// While it sends a request: when its head came (uptime, ns) and the body bytes since.
    var receivingSince: UInt64?
    var received = 0
    /// When it opened (uptime, ns), and whether it has sent a request yet: a connection that
    /// opened a moment ago has not had time to send one.
    var openedAt: UInt64 = 0
    var requested = false

    /// It has asked before, or has been open past ``rateGrace``: not a client about to ask.
    func isSettled(now: UInt64) -> Bool { requested || now >= openedAt + ConnectionRegistry.rateGrace }
  }

  private struct State {
    var entries: [ObjectIdentifier: Entry] = [:]
    var tick: UInt64 = 0
  }

  private let state = Locked(State())
  let maxConnections: Int
  /// Bytes a second below which a request still arriving may be closed to make room: a client
  /// that holds a body back (one byte at a time, or none) is not a client sending a document.
  static let minimumBodyRate = 4096
  /// A request is judged by its rate only after this long (ns).
  static let rateGrace: UInt64 = 1_000_000_000

  init(maxConnections: Int) {
    self.maxConnections = maxConnections
  }

  /// Open connections.
  var count: Int { state.withLock { $0.entries.count } }

  /// A new connection. Beyond `maxConnections` one connection is closed to make room: the one
  /// that has waited longest without a request (one that opened a moment ago and has not asked
  /// yet only when no other waits), else the slowest of those sending a request below
  /// ``minimumBodyRate``. A request the daemon is answering is never closed.
  func opened(_ channel: any Channel) {
    let now = NIODeadline.now().uptimeNanoseconds
    let evict: (any Channel)? = state.withLock { state in
      state.tick += 1
      let id = ObjectIdentifier(channel)
      state.entries[id] = Entry(channel: channel, idleSince: state.tick, openedAt: now)
      guard state.entries.count > maxConnections else { return nil }
      guard let victim = Self.victim(among: state.entries, sparing: id, now: now) else { return nil }
      return state.entries.removeValue(forKey: victim)?.channel
    }
    evict?.close(promise: nil)
  }

  /// The connection to close to make room (see ``opened(_:)``), never `spared`: the idlest of
  /// those that have had an answer or have been open past ``rateGrace``, else the idlest of those
  /// that opened a moment ago without a request yet, else the slowest sender. A connection that
  /// just opened counts as idle since it opened, so a till's `/healthz`, opened before the event
  /// streams it arrived among had ended, was the idlest and closed before its request came
  /// (once, in a fresh clone's run of `eventStreamsCannotLockTheAPIOut`); an ended answer's
  /// connection goes first now, and a flood of new connections still closes the oldest of its own.
  private static func victim(
    among entries: [ObjectIdentifier: Entry], sparing spared: ObjectIdentifier, now: UInt64
  ) -> ObjectIdentifier? {
    var idlest: (key: ObjectIdentifier, since: UInt64)?
    var idlestNew: (key: ObjectIdentifier, since: UInt64)?
    var slowest: (key: ObjectIdentifier, rate: Double)?
    for (key, entry) in entries where key != spared {
      if let since = entry.idleSince {
        if entry.isSettled(now: now) {
          if since < idlest?.since ?? .max { idlest = (key, since) }
        } else if since < idlestNew?.since ?? .max {
          idlestNew = (key, since)
        }
      } else if let since = entry.receivingSince, now > since + rateGrace {
        let rate = Double(entry.received) * 1e9 / Double(now - since)
        if rate < Double(minimumBodyRate), rate < slowest?.rate ?? .infinity { slowest = (key, rate) }
      }
    }
    return idlest?.key ?? idlestNew?.key ?? slowest?.key
  }

  /// A request's head came: it is in a request, receiving.
  func busy(_ channel: any Channel) {
    let now = NIODeadline.now().uptimeNanoseconds
    state.withLock {
      $0.entries[ObjectIdentifier(channel)]?.idleSince = nil
      $0.entries[ObjectIdentifier(channel)]?.requested = true
      $0.entries[ObjectIdentifier(channel)]?.receivingSince = now
      $0.entries[ObjectIdentifier(channel)]?.received = 0
    }
  }

  /// Body bytes of the request in progress came.
  func received(_ channel: any Channel, bytes: Int) {
    state.withLock { $0.entries[ObjectIdentifier(channel)]?.received += bytes }
  }

  /// The request came whole: the daemon answers it (it is not closed for its pace any more).
  func answering(_ channel: any Channel) {
    state.withLock { $0.entries[ObjectIdentifier(channel)]?.receivingSince = nil }
  }

  /// An answer was written: the connection waits for its next request. Beyond
  /// `maxConnections` the other connection that has waited longest without a request is closed
  /// at once: when every connection was busy as new ones came, none could be
  /// closed to make room then, and without this the surplus stayed open until its header
  /// timeout — while connections past the listener's hard cap (four times `maxConnections`)
  /// waited in the kernel's backlog, `/healthz` among them (seen with 40 event streams). A
  /// connection that opened less than ``rateGrace`` ago and has not sent a request yet is not
  /// closed here: it is a client about to ask (a till's `/healthz` right after 40 event streams
  /// opened was closed before its request arrived, each ended stream closing the idlest
  /// connection left); past the grace it is idle like any other, and a new connection still
  /// makes room by closing it (``opened(_:)``).
  func idle(_ channel: any Channel) {
    let now = NIODeadline.now().uptimeNanoseconds
    let evict: (any Channel)? = state.withLock { state in
      state.tick += 1
      let id = ObjectIdentifier(channel)
      state.entries[id]?.idleSince = state.tick
      state.entries[id]?.receivingSince = nil
      guard state.entries.count > maxConnections else { return nil }
      // Not this one: its answer's end is still being written.
      let idlest = state.entries.filter {
        $0.key != id && $0.value.idleSince != nil && $0.value.isSettled(now: now)
      }.min {
        $0.value.idleSince! < $1.value.idleSince!
      }
      guard let victim = idlest?.key else { return nil }
      return state.entries.removeValue(forKey: victim)?.channel
    }
    evict?.close(promise: nil)
  }

  func closed(_ channel: any Channel) {
    _ = state.withLock { $0.entries.removeValue(forKey: ObjectIdentifier(channel)) }
  }
}
