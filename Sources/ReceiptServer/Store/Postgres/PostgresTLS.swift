import Foundation
import NIOSSL
import ReceiptKit

#if canImport(Glibc)
  import Glibc
#endif

/// How a daemon's sessions to PostgreSQL use TLS, set by libpq's own URL parameters so that a
/// URL written for `psql` means the same here: `sslmode`, `sslrootcert`, `sslcert` and `sslkey`.
///
/// | `sslmode` | the session |
/// |---|---|
/// | `disable` | never encrypted |
/// | `allow`, `prefer` (the default, as libpq's) | encrypted when the server offers TLS; its certificate is not checked |
/// | `require` | encrypted, or no session; the certificate is checked as `verify-ca` when `sslrootcert` is given (libpq's rule) |
/// | `verify-ca` | encrypted, and the server's certificate signed by a trusted authority |
/// | `verify-full` | as `verify-ca`, and the certificate names the host (its DNS name, or its IP address) |
///
/// The trusted authorities are `sslrootcert` (a PEM file), or the system's store when it is
/// absent or `system`. `sslcert` and `sslkey` (PEM, both or neither) are the daemon's own
/// certificate for servers that ask for one (`cert` in `pg_hba.conf`); the key must not be
/// readable by others (libpq's rule: `0600`, or `0640` owned by root). A local socket
/// (`?host=/run/postgresql`) is never encrypted, as with libpq.
package struct PostgresTLS: Sendable {
  /// libpq's `sslmode` values.
  package enum Mode: String, Sendable, CaseIterable {
    case disable, allow, prefer, require
    case verifyCA = "verify-ca"
    case verifyFull = "verify-full"
  }

  package var mode: Mode = .prefer
  /// `sslrootcert`: a PEM file of trusted authorities, or `system`.
  package var rootCertificates: String?
  /// `sslcert` and `sslkey`: the daemon's own certificate chain and key (PEM files).
  package var clientCertificate: String?
  package var clientKey: String?

  /// The certificates a URL's files hold, read once when the URL is parsed (the files' errors
  /// are the URL's errors, before anything connects).
  private var loaded: Loaded?

  private struct Loaded: Sendable {
    var roots: [NIOSSLCertificate]?
    var chain: [NIOSSLCertificate]
    var key: NIOSSLPrivateKey?
  }

  /// Whether a session must be encrypted (no fallback to plain text).
  package var isRequired: Bool { mode == .require || mode == .verifyCA || mode == .verifyFull }

  /// What of the server's certificate is checked.
  var verification: CertificateVerification {
    switch mode {
    case .disable, .allow, .prefer: return .none
    case .require: return rootCertificates == nil ? .none : .noHostnameVerification
    case .verifyCA: return .noHostnameVerification
    case .verifyFull: return .fullVerification
    }
  }

  /// Reads the files the parameters name; the error says which file and how to fix it.
  mutating func load() throws {
    guard mode != .disable else { return }
    guard (clientCertificate == nil) == (clientKey == nil) else {
      throw ReceiptError(
        .data, "sslcert and sslkey go together: give both (the daemon's certificate and its key) or neither")
    }
    var loaded = Loaded(chain: [])
    if let roots = rootCertificates, roots != "system" {
      let pem = try Self.read(roots, parameter: "sslrootcert", what: "the trusted authorities' certificates")
      loaded.roots = try Self.certificates(pem, parameter: "sslrootcert", path: roots)
    }
    if let certificate = clientCertificate, let key = clientKey {
      loaded.chain = try Self.certificates(
        Self.read(certificate, parameter: "sslcert", what: "the daemon's certificate"), parameter: "sslcert",
        path: certificate)
      try Self.checkPrivate(key)
      let pem = try Self.read(key, parameter: "sslkey", what: "the daemon's private key")
      do {
        loaded.key = try NIOSSLPrivateKey(bytes: pem, format: .pem)
      } catch {
        throw ReceiptError(.data, "sslkey=\(key) is not a PEM private key (\(error)); give the key of sslcert")
      }
    }
    self.loaded = loaded
  }

  /// The TLS configuration of a session (nil: `disable`).
  var configuration: TLSConfiguration? {
    guard mode != .disable else { return nil }
    var configuration = TLSConfiguration.makeClientConfiguration()
    configuration.certificateVerification = verification
    if let roots = loaded?.roots { configuration.trustRoots = .certificates(roots) }
    if let loaded, let key = loaded.key {
      configuration.certificateChain = loaded.chain.map { .certificate($0) }
      configuration.privateKey = .privateKey(key)
    }
    return configuration
  }

  /// The URL parameters that say this, for the redacted URL (nothing for the default).
  var parameters: [String] {
    var items: [String] = []
    if mode != .prefer { items.append("sslmode=\(mode.rawValue)") }
    if let rootCertificates { items.append("sslrootcert=\(rootCertificates)") }
    if let clientCertificate { items.append("sslcert=\(clientCertificate)") }
    if let clientKey { items.append("sslkey=\(clientKey)") }
    return items
  }

  /// A TLS failure in plain words, with what to change (nil: not one).
  static func describe(_ error: any Error) -> String? {
    if let extra = error as? NIOSSLExtraError, extra == .failedToValidateHostname {
      return "TLS: the server's certificate does not name the host it was reached at (\(extra)); "
        + "with sslmode=verify-full, connect by a name the certificate has"
    }
    if let ssl = error as? NIOSSLError, case .handshakeFailed(let failure) = ssl,
      "\(failure)".contains("CERTIFICATE_VERIFY_FAILED")
    {
      return "TLS: the server's certificate is not signed by a trusted authority (sslrootcert's, or the "
        + "system's when it is not given); give sslrootcert the authority that signed it"
    }
    return nil
  }

  /// Whether an error is TLS's own (a handshake or a certificate check).
  static func isTLSError(_ error: any Error) -> Bool {
    error is NIOSSLError || error is NIOSSLExtraError || error is BoringSSLError
  }

  /// A PEM file of at most 1 MiB.
  private static func read(_ path: String, parameter: String, what: String) throws -> [UInt8] {
    guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else {
      throw ReceiptError(.data, "\(parameter)=\(path): no such file; give the PEM file of \(what)")
    }
    guard attributes[.type] as? FileAttributeType == .typeRegular, (attributes[.size] as? Int ?? 0) <= 1 << 20 else {
      throw ReceiptError(.data, "\(parameter)=\(path) is not a PEM file of at most 1 MiB; give the file of \(what)")
    }
    let unreadable = ReceiptError(.data, "\(parameter)=\(path) cannot be read by this user; give it read access")
    guard let handle = FileHandle(forReadingAtPath: path) else { throw unreadable }
    defer { try? handle.close() }
    // FileHandle, not Data(contentsOf:): swift-foundation keeps the buffer of an empty file's read.
    let data: Data?
    do { data = try handle.read(upToCount: (1 << 20) + 1) } catch { throw unreadable }
    guard (data?.count ?? 0) <= 1 << 20 else {
      throw ReceiptError(.data, "\(parameter)=\(path) is not a PEM file of at most 1 MiB; give the file of \(what)")
    }
    return [UInt8](data ?? Data())
  }

  private static func certificates(_ pem: [UInt8], parameter: String, path: String) throws -> [NIOSSLCertificate] {
    let certificates = try? NIOSSLCertificate.fromPEMBytes(pem)
    guard let certificates, !certificates.isEmpty else {
      throw ReceiptError(.data, "\(parameter)=\(path) holds no PEM certificate (-----BEGIN CERTIFICATE-----)")
    }
    return certificates
  }

  /// libpq's rule for a private key file: no access for group or others when the daemon's user
  /// owns it; read access for the group at most when root owns it (a key another user owns is
  /// not checked, as libpq does not).
  private static func checkPrivate(_ path: String) throws {
    guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
      let mode = attributes[.posixPermissions] as? Int, let owner = attributes[.ownerAccountID] as? Int
    else {
      throw ReceiptError(.data, "sslkey=\(path): no such file; give the PEM file of the daemon's private key")
    }
    let allowed: Int
    if owner == Int(geteuid()) {
      allowed = 0o600
    } else if owner == 0 {
      allowed = 0o640
    } else {
      return
    }
    guard mode & 0o777 & ~allowed == 0 else {
      throw ReceiptError(
        .data,
        "sslkey=\(path) can be read by others (mode \(String(mode & 0o777, radix: 8))); "
          + "chmod \(String(allowed, radix: 8)) it, as libpq requires")
    }
  }
}
