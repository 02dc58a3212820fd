import Foundation
import HummingbirdCore
import Logging
import NIOCore
import NIOSSL
import NIOTLS

/// An IPP listener's connection: TLS or plain HTTP on the one port, as CUPS and PAPPL serve
/// `ipp://` and `ipps://` on 631. ``TLSDetector`` reads the first bytes and sets the pipeline
/// up before HTTP sees any; then the connection is the HTTP/1.1 channel it wraps.
struct IPPChannel<Base: ServerChildChannel>: ServerChildChannel {
  typealias Value = Base.Value
  let base: Base
  let security: IPPSecurity

  func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
    guard security.mode != .off else { return base.setup(channel: channel, logger: logger) }
    return channel.eventLoop.makeCompletedFuture {
      try channel.pipeline.syncOperations.addHandler(TLSDetector(security: security))
    }.flatMap {
      base.setup(channel: channel, logger: logger)
    }
  }

  func handle(value: Value, logger: Logger) async {
    await base.handle(value: value, logger: logger)
  }
}

extension IPPChannel: HTTPChannelHandler where Base: HTTPChannelHandler {
  var responder: HTTPChannelHandler.Responder { base.responder }
}

extension HTTPServerBuilder {
  /// HTTP/1.1 with TLS on the same port when `security` offers it.
  static func ipp(_ configuration: HTTP1Channel.Configuration, security: IPPSecurity) -> HTTPServerBuilder {
    .init { responder in
      IPPChannel(base: HTTP1Channel(responder: responder, configuration: configuration), security: security)
    }
  }
}

/// Decides what an IPP connection speaks from its first bytes, then leaves the pipeline:
/// - a TLS handshake (`0x16`, a client of `ipps://`): TLS, then HTTP inside it;
/// - `OPTIONS *` asking `Upgrade: TLS/1.2` (RFC 2817; libcups' `-E`, `HTTP_ENCRYPTION_REQUIRED`):
///   `101 Switching Protocols`, the handshake, then the answer to the `OPTIONS` inside TLS;
/// - anything else: plain HTTP, or — when TLS is required — `426 Upgrade Required` once the
///   request's head has come (libcups then reconnects and upgrades), and the connection closed;
///   a browser's `GET` of a page is sent to the same page over `https://` (`301`) instead.
/// A head is read at most to ``maximumHead`` bytes; the listener's header timeout bounds the wait.
final class TLSDetector: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = ByteBuffer
  typealias InboundOut = ByteBuffer
  typealias OutboundOut = ByteBuffer

  /// The most bytes kept while a head is read.
  static let maximumHead = 8192

  private let security: IPPSecurity
  private var buffered: ByteBuffer?
  /// Reading the first bytes; then passing them on (TLS or plain HTTP after this handler), or
  /// refusing the connection (plain HTTP where TLS is required: what comes after is dropped).
  private var state = State.deciding
  private enum State { case deciding, passing, refusing }

  init(security: IPPSecurity) { self.security = security }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    switch state {
    case .passing: return context.fireChannelRead(data)
    case .refusing: return
    case .deciding: break
    }
    var bytes = unwrapInboundIn(data)
    if buffered == nil { buffered = bytes } else { buffered!.writeBuffer(&bytes) }
    decide(context)
  }

  private func decide(_ context: ChannelHandlerContext) {
    guard let bytes = buffered, let first = bytes.readableBytesView.first else { return }
    let view = bytes.readableBytesView
    if first == 0x16, let tls = security.context { return startTLS(context, tls, answer: nil) }
    let headEnd = Self.endOfHead(view)
    guard headEnd != nil || view.count >= Self.maximumHead || !Self.mayBeUpgrade(view) || security.mode == .required
    else { return }  // an OPTIONS whose head has not all come yet
    if let end = headEnd, let tls = security.context, Self.asksForTLS(view.prefix(end)) {
      buffered!.moveReaderIndex(forwardBy: end)
      let switching = "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: TLS/1.2, HTTP/1.1\r\n\r\n"
      context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: switching)), promise: nil)
      return startTLS(context, tls, answer: "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
    }
    guard security.mode == .required else { return leave(context) }
    guard headEnd != nil || view.count >= Self.maximumHead else { return }
    state = .refusing
    let location = headEnd.flatMap { Self.secureLocation(view.prefix($0)) }
    buffered = nil
    let refusal: String
    if let location {
      // A browser opening the printer's page: to the same page over TLS, on this same port.
      refusal =
        "HTTP/1.1 301 Moved Permanently\r\nLocation: \(location)\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"
    } else {
      let why = "this printer takes only encrypted connections (ipps)\n"
      refusal =
        "HTTP/1.1 426 Upgrade Required\r\nConnection: Upgrade, close\r\nUpgrade: TLS/1.2, HTTP/1.1\r\n"
        + "Content-Type: text/plain\r\nContent-Length: \(why.utf8.count)\r\n\r\n\(why)"
    }
    context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: refusal))).whenComplete { _ in
      context.close(promise: nil)
    }
  }

  /// TLS after this handler; `answer` written inside it once the handshake is done (the
  /// answer to an upgraded `OPTIONS`).
  private func startTLS(_ context: ChannelHandlerContext, _ tls: NIOSSLContext, answer: String?) {
    let handler = NIOSSLServerHandler(context: tls)
    do {
      try context.pipeline.syncOperations.addHandler(handler, position: .after(self))
      if let answer {
        try context.pipeline.syncOperations.addHandler(UpgradeAnswer(answer), position: .after(handler))
      }
    } catch {
      state = .refusing
      return context.close(promise: nil)
    }
    leave(context)
  }

  /// Hands what came so far to the handler after this one, and leaves the pipeline.
  private func leave(_ context: ChannelHandlerContext) {
    state = .passing
    if let bytes = buffered, bytes.readableBytes > 0 { context.fireChannelRead(wrapInboundOut(bytes)) }
    buffered = nil
    context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
  }

  /// The length of a request's head up to and with its blank line, if it has all come.
  static func endOfHead(_ view: ByteBufferView) -> Int? {
    let bytes = Array(view.prefix(maximumHead))
    guard bytes.count >= 4 else { return nil }
    for index in 3..<bytes.count
    where bytes[index - 3] == 13 && bytes[index - 2] == 10 && bytes[index - 1] == 13 && bytes[index] == 10 {
      return index + 1
    }
    return nil
  }

  /// Where a plain `GET` or `HEAD` (a browser's) goes when TLS is required: `https://` with the
  /// request's own `Host` and path — the same port serves TLS. Nil for any other request (IPP's
  /// `POST`s are answered `426`, which libcups follows by upgrading), and for a host or path with
  /// anything but the characters a host name, an address and a URL path are written with, so
  /// nothing a client sent can add a header.
  static func secureLocation(_ head: ByteBufferView.SubSequence) -> String? {
    let (request, fields) = Self.parse(head)
    let parts = request.split(separator: " ")
    guard parts.count == 3, parts[0] == "GET" || parts[0] == "HEAD", parts[1].hasPrefix("/"),
      parts[1].utf8.count <= 2048, parts[1].utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f }),
      let host = fields.first(where: { $0.name == "host" })?.value, !host.isEmpty, host.utf8.count <= 255,
      host.utf8.allSatisfy({ Self.hostCharacters.contains($0) })
    else { return nil }
    return "https://\(host)\(parts[1])"
  }

  /// Letters, digits and `-._:[]` (names, IPv4 and bracketed IPv6 addresses, a port).
  private static let hostCharacters = Set(
    Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._:[]".utf8))

  /// Whether the bytes so far can still begin `OPTIONS ` (an upgrade's request line).
  static func mayBeUpgrade(_ view: ByteBufferView) -> Bool {
    let options = Array("OPTIONS ".utf8)
    let count = min(view.count, options.count)
    return view.prefix(count).elementsEqual(options.prefix(count))
  }

  /// Whether a head is an `OPTIONS` that asks to upgrade to TLS (`Upgrade: TLS/…`).
  static func asksForTLS(_ head: ByteBufferView.SubSequence) -> Bool {
    let (request, fields) = Self.parse(head)
    guard request.lowercased().hasPrefix("options ") else { return false }
    return fields.contains { $0.name == "upgrade" && $0.value.lowercased().contains("tls/") }
  }

  /// A head's request line and its fields (names lowercased, values without the spaces around
  /// them), decoded as UTF-8 with replacement characters for anything else.
  static func parse(_ head: ByteBufferView.SubSequence) -> (request: Substring, fields: [(name: String, value: String)])
  {
    let lines = String(decoding: head, as: UTF8.self).split(separator: "\r\n")
    let fields = lines.dropFirst().compactMap { line -> (name: String, value: String)? in
      guard let colon = line.firstIndex(of: ":") else { return nil }
      return (
        line[..<colon].trimmingCharacters(in: .whitespaces).lowercased(),
        line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
      )
    }
    return (lines.first ?? "", fields)
  }
}

/// Writes the answer to an upgraded `OPTIONS *` inside TLS once the handshake is done (RFC 2817
/// 3.3: the server continues with the response to the original request), then leaves.
final class UpgradeAnswer: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = ByteBuffer
  typealias OutboundOut = ByteBuffer

  private let answer: String

  init(_ answer: String) { self.answer = answer }

  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    context.fireUserInboundEventTriggered(event)
    guard case .handshakeCompleted? = event as? TLSUserEvent else { return }
    context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: answer)), promise: nil)
    context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
  }
}
