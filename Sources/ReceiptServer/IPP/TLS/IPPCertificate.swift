import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import X509

/// The IPP listener's TLS identity: a certificate chain and its private key, as PEM.
///
/// Either the operator's (`ippCertificate` and `ippPrivateKey`, read as they are) or one the
/// daemon makes for itself on first start and keeps (`<database>-tls/`, mode 0600), as CUPS and
/// PAPPL do: self-signed, ECDSA P-256, for the machine's names (`HOST`, `HOST.local`,
/// `localhost`) and the loopback addresses, valid 397 days (within the 398 days browsers and
/// Apple accept) and made anew at start when fewer than 30 days are left or the machine's name
/// changed. IPP clients trust such a certificate on first use (libcups, iOS), as printers' own.
struct IPPCertificate: Sendable {
  var chainPEM: String
  var keyPEM: String

  /// Days a self-made certificate is valid.
  static let validDays = 397
  /// Days before its end a self-made certificate is made anew.
  static let renewDays = 30

  /// The TLS server configuration of this identity: TLS 1.2 (the `TLS=1.2` DNS-SD key). Not
  /// 1.3: over TLS 1.3, libcups 2.4 on GnuTLS (ipptool, CUPS' `ipp` backend, every Linux
  /// desktop) reads no answer when it has a timeout set (`ipptool -T 5 ipps://…`: "0 bytes in
  /// response"; without `-T` it does) — likely the session tickets a 1.3 server sends after the
  /// handshake, which NIOSSL cannot turn off. IPPSTests runs ipptool with a timeout.
  func serverContext() throws -> NIOSSLContext {
    let chain = try NIOSSLCertificate.fromPEMBytes(Array(chainPEM.utf8)).map { NIOSSLCertificateSource.certificate($0) }
    let key = try NIOSSLPrivateKey(bytes: Array(keyPEM.utf8), format: .pem)
    var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key))
    configuration.minimumTLSVersion = .tlsv12
    configuration.maximumTLSVersion = .tlsv12
    return try NIOSSLContext(configuration: configuration)
  }

  /// The operator's certificate chain and key (PEM files); an error names the file and the fix.
  static func configured(certificate: String, privateKey: String) throws -> IPPCertificate {
    func read(_ path: String, _ what: String) throws -> String {
      guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
        throw TLSSetupError("cannot read the IPP \(what) \(path); give a readable PEM file")
      }
      return text
    }
    let identity = IPPCertificate(
      chainPEM: try read(certificate, "certificate"), keyPEM: try read(privateKey, "private key"))
    do {
      _ = try identity.serverContext()
    } catch {
      throw TLSSetupError(
        "ippCertificate \(certificate) and ippPrivateKey \(privateKey) are not a PEM certificate chain and its key (\(error))"
      )
    }
    return identity
  }

  /// The certificate kept in `directory` (`certificate.pem`, `key.pem`), made first when there
  /// is none, when it ends within ``renewDays`` of `now`, or when it does not name `host`.
  static func kept(in directory: URL, host: String, now: Date = Date()) throws -> IPPCertificate {
    let certificateFile = directory.appendingPathComponent("certificate.pem")
    let keyFile = directory.appendingPathComponent("key.pem")
    if let chain = try? String(contentsOf: certificateFile, encoding: .utf8),
      let key = try? String(contentsOf: keyFile, encoding: .utf8),
      let certificate = try? Certificate(pemEncoded: chain),
      certificate.notValidAfter > now.addingTimeInterval(Double(renewDays) * 86_400),
      names(of: certificate).contains(host.lowercased())
    {
      return IPPCertificate(chainPEM: chain, keyPEM: key)
    }
    let made = try selfSigned(host: host, now: now)
    do {
      try FileManager.default.createDirectory(
        at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
      // The key first, readable by the daemon's user only; a file is replaced whole (rename).
      try keep(made.keyPEM, at: keyFile)
      try keep(made.chainPEM, at: certificateFile)
    } catch {
      throw TLSSetupError("cannot keep the IPP certificate in \(directory.path) (\(error)); make it writable")
    }
    return made
  }

  /// A self-signed server certificate for the machine's names.
  static func selfSigned(host: String, now: Date = Date()) throws -> IPPCertificate {
    let key = P256.Signing.PrivateKey()
    let name = try DistinguishedName {
      CommonName(host)
      OrganizationName("receipt")
    }
    let loopback4: [UInt8] = [127, 0, 0, 1]
    let loopback6: [UInt8] = Array(repeating: 0, count: 15) + [1]
    let certificate = try Certificate(
      version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
      notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(Double(validDays) * 86_400),
      issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
      extensions: try Certificate.Extensions {
        Critical(BasicConstraints.notCertificateAuthority)
        Critical(KeyUsage(digitalSignature: true))
        try ExtendedKeyUsage([.serverAuth])
        SubjectAlternativeNames([
          .dnsName(host), .dnsName("\(host).local"), .dnsName("localhost"),
          .ipAddress(ASN1OctetString(contentBytes: loopback4[...])),
          .ipAddress(ASN1OctetString(contentBytes: loopback6[...])),
        ])
      }, issuerPrivateKey: .init(key))
    return IPPCertificate(chainPEM: try certificate.serializeAsPEM().pemString, keyPEM: key.pemRepresentation)
  }

  /// The DNS names a certificate is for (lowercased).
  static func names(of certificate: Certificate) -> Set<String> {
    guard let alternatives = try? certificate.extensions.subjectAlternativeNames else { return [] }
    return Set(
      alternatives.compactMap {
        if case .dnsName(let name) = $0 { name.lowercased() } else { nil }
      })
  }

  /// Writes `text` to `file` whole: a new file made with mode 0600 (never readable by others,
  /// not even for a moment), then renamed over the old one.
  private static func keep(_ text: String, at file: URL) throws {
    let temporary = file.deletingLastPathComponent().appendingPathComponent(".\(file.lastPathComponent).new")
    unlink(temporary.path)
    let fd = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw TLSSetupError("cannot write \(temporary.path): \(String(cString: strerror(errno)))") }
    let bytes = Array(text.utf8)
    let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    let synced = fsync(fd) == 0
    close(fd)
    guard written == bytes.count, synced, rename(temporary.path, file.path) == 0 else {
      throw TLSSetupError("cannot write \(file.path): \(String(cString: strerror(errno)))")
    }
  }
}

/// The IPP listener's TLS cannot be set up; the message says why and how to fix it.
struct TLSSetupError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}
