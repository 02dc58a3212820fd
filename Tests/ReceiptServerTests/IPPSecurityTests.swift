import Foundation
import NIOCore
import ReceiptTestSupport
import Testing

@testable import ReceiptServer

/// What the IPP listener's first-bytes check takes for an upgrade to TLS (RFC 2817 section 3.2:
/// an `Upgrade` header naming `TLS/…`, here on libcups' `OPTIONS *`), and when the self-made
/// certificate is kept or made anew.
@Suite struct IPPSecurityTests {
  func head(_ text: String) -> ByteBufferView { ByteBuffer(string: text).readableBytesView }

  /// libcups' own upgrade request (cups/http.c `http_tls_upgrade`) and its spellings in other
  /// cases are upgrades; another protocol, another method or another header are not.
  @Test func anUpgradeIsAnOptionsThatNamesTLS() throws {
    let upgrades = [
      "OPTIONS * HTTP/1.1\r\nHost: localhost:631\r\nConnection: upgrade\r\nUpgrade: TLS/1.2,TLS/1.1,TLS/1.0\r\n\r\n",
      "options * HTTP/1.1\r\nUPGRADE:tls/1.0\r\n\r\n",
      "OPTIONS * HTTP/1.1\r\nupgrade:   HTTP/2.0, TLS/1.3\r\n\r\n",
    ]
    let others = [
      "OPTIONS * HTTP/1.1\r\nUpgrade: h2c\r\n\r\n", "GET / HTTP/1.1\r\nUpgrade: TLS/1.2\r\n\r\n",
      "OPTIONS * HTTP/1.1\r\nX-Upgrade: TLS/1.2\r\n\r\n", "OPTIONS * HTTP/1.1\r\nHost: TLS/1.2\r\n\r\n",
    ]
    for text in upgrades + others {
      let view = head(text)
      let end = try #require(TLSDetector.endOfHead(view), "\(text)")
      #expect(end == view.count)
      #expect(TLSDetector.asksForTLS(view.prefix(end)) == upgrades.contains(text), "\(text)")
    }
    #expect(TLSDetector.endOfHead(head("OPTIONS * HTTP/1.1\r\nUpgrade: TLS/1.2\r\n")) == nil, "not all come yet")
    #expect(TLSDetector.mayBeUpgrade(head("OPT")) && TLSDetector.mayBeUpgrade(head("OPTIONS * H")))
    #expect(!TLSDetector.mayBeUpgrade(head("POST /ipp/print HTTP/1.1")) && !TLSDetector.mayBeUpgrade(head("G")))
  }

  /// The certificate the daemon makes is kept while it has more than 30 days left and names
  /// the machine; then it is made anew (and kept, readable by its owner only).
  @Test func theSelfMadeCertificateIsKeptUntilItIsDue() throws {
    let directory = try Tool.temporaryDirectory().appendingPathComponent("tls")
    let start = Date()
    let first = try IPPCertificate.kept(in: directory, host: "till", now: start)
    let day = 86_400.0
    #expect(try IPPCertificate.kept(in: directory, host: "till", now: start + day).chainPEM == first.chainPEM)
    #expect(try IPPCertificate.kept(in: directory, host: "TILL", now: start + 366 * day).chainPEM == first.chainPEM)
    let renewed = try IPPCertificate.kept(in: directory, host: "till", now: start + 368 * day)
    #expect(renewed.chainPEM != first.chainPEM, "fewer than 30 days left: made anew")
    #expect(
      try String(contentsOf: directory.appendingPathComponent("certificate.pem"), encoding: .utf8) == renewed.chainPEM)
    let renamed = try IPPCertificate.kept(in: directory, host: "counter", now: start + 368 * day)
    #expect(renamed.chainPEM != renewed.chainPEM, "another machine name: made anew")
    for file in ["certificate.pem", "key.pem"] {
      let mode =
        try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(file).path)[
          .posixPermissions] as? Int
      #expect(mode == 0o600, "\(file)")
    }
    #expect(throws: Never.self) { _ = try renamed.serverContext() }
  }
}
