import Hummingbird
import NIOCore
import NIOSSL

/// The IPP listener's request context: Hummingbird's, plus the connection, to tell whether the
/// request came over TLS (its URIs are then `ipps://`).
struct IPPRequestContext: RequestContext {
  var coreContext: CoreRequestContextStorage
  let channel: any Channel

  init(source: ApplicationRequestContextSource) {
    coreContext = .init(source: source)
    channel = source.channel
  }

  /// Whether this connection speaks TLS (``TLSDetector`` put it in before the request came).
  func isEncrypted() async -> Bool {
    (try? await channel.pipeline.handler(type: NIOSSLServerHandler.self).get()) != nil
  }
}
