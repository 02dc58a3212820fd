import Foundation
import Logging
import NIOSSL
@_spi(Internals) import ReceiptModel

/// Whether the IPP listener speaks TLS (`ippTLS`).
package enum IPPEncryption: String, Sendable, CaseIterable {
  /// `ipp://` and `ipps://` on the same port (the default).
  case optional
  /// `ipps://` only: a plain request is answered `426 Upgrade Required` (a plain `GET` of a page
  /// is redirected to it over `https://`).
  case required
  /// `ipp://` only.
  case off
}

/// The IPP listener's TLS: its mode and the server context new connections use. A certificate
/// the daemon made for itself is made anew when it is due (``renewIfDue(now:)``, daily), and new
/// connections then get the new one; an operator's certificate is used as it was read.
final class IPPSecurity: Sendable {
  let mode: IPPEncryption
  private let current: Locked<(context: NIOSSLContext, chain: String)?>
  /// Where a self-made certificate is kept, and the name it is for (nil: the operator's).
  private let kept: (directory: URL, host: String)?

  /// The URI schemes the printers answer at: `ipp` and `ipps`, one of them, in that order.
  var schemes: [String] {
    switch mode {
    case .optional: ["ipp", "ipps"]
    case .required: ["ipps"]
    case .off: ["ipp"]
    }
  }

  /// The server context, nil when TLS is off.
  var context: NIOSSLContext? { current.withLock { $0?.context } }

  /// Sets TLS up as configured: the operator's certificate, or the one kept in `directory`
  /// (made now if needed). Throws ``TLSSetupError`` with what to fix.
  init(_ configuration: ReceiptServer.Configuration.IPPConfiguration, directory: URL, host: String) throws {
    mode = configuration.encryption
    guard mode != .off else {
      current = Locked(nil)
      kept = nil
      return
    }
    let identity: IPPCertificate
    if let certificate = configuration.certificate, let key = configuration.privateKey {
      identity = try IPPCertificate.configured(certificate: certificate, privateKey: key)
      kept = nil
    } else {
      identity = try IPPCertificate.kept(in: directory, host: host)
      kept = (directory, host)
    }
    current = Locked((try identity.serverContext(), identity.chainPEM))
  }

  /// Plain HTTP only (tests of the parts, IPP off).
  init() {
    mode = .off
    current = Locked(nil)
    kept = nil
  }

  /// Makes the self-made certificate anew when it ends within ``IPPCertificate/renewDays``;
  /// returns whether it did.
  @discardableResult
  func renewIfDue(now: Date = Date(), logger: Logger) -> Bool {
    guard let kept, let identity = try? IPPCertificate.kept(in: kept.directory, host: kept.host, now: now),
      identity.chainPEM != current.withLock({ $0?.chain }), let context = try? identity.serverContext()
    else { return false }
    current.withLock { $0 = (context, identity.chainPEM) }
    logger.info(
      "made a new IPP certificate in \(kept.directory.path): the last one ended within \(IPPCertificate.renewDays) days"
    )
    return true
  }
}
