import NIOCore
import NIOHTTP1

/// Puts an HTTP/1 request head into the form the rest of the daemon reads, before it becomes
/// an HTTPTypes request (which keeps neither the version nor the request target's form):
/// - a request that does not keep its connection (HTTP/1.0 without `Connection: keep-alive`)
///   says `Connection: close`, so its connection ends after the answer (RFC 9112 §9.3) —
///   Hummingbird closes only on that header;
/// - an absolute-form target (`GET http://host:port/path`, RFC 9112 §3.2.2) becomes its path,
///   and `Host` its authority, which the server must use instead of the `Host` header: the
///   name checks (DNS rebinding) and the URIs in answers then see the name the client used.
/// ``ConnectionGuard`` inserts it in front of the HTTP codec of each connection.
final class RequestHeadNormalizer: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPServerRequestPart
  typealias InboundOut = HTTPServerRequestPart

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    guard case .head(var head) = unwrapInboundIn(data) else {
      context.fireChannelRead(data)
      return
    }
    if !head.isKeepAlive { head.headers.replaceOrAdd(name: "connection", value: "close") }
    if let (authority, path) = Self.absoluteForm(head.uri) {
      head.uri = path
      head.headers.replaceOrAdd(name: "host", value: authority)
    }
    context.fireChannelRead(wrapInboundOut(.head(head)))
  }

  /// The authority and path of an absolute-form target (`http://host[:port]/path?query`), nil
  /// for the origin form (`/path`) and anything else.
  static func absoluteForm(_ target: String) -> (authority: String, path: String)? {
    let lower = target.prefix(8).lowercased()
    let scheme = lower.hasPrefix("http://") ? 7 : lower.hasPrefix("https://") ? 8 : 0
    guard scheme > 0 else { return nil }
    let rest = target.dropFirst(scheme)
    let end = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
    var authority = rest[..<end]
    // User information is not part of the host (`http://user@host/`).
    if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
    guard !authority.isEmpty else { return nil }
    var path = String(rest[end...])
    if path.isEmpty || path.hasPrefix("?") { path = "/" + path }
    return (String(authority), path)
  }
}
