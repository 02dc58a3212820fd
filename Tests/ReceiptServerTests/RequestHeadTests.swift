import Foundation
import Testing

@testable import ReceiptServer

/// What a request head becomes before the daemon reads it, and what of a client's text may reach
/// the log.
@Suite struct RequestHeadTests {
  /// An absolute-form target's authority is the request's host (RFC 9112 §3.2.2): the name
  /// checks see it, not the `Host` header the same request carries.
  @Test func absoluteFormTargetsNameTheirHost() {
    #expect(RequestHeadNormalizer.absoluteForm("http://evil.example/healthz")! == ("evil.example", "/healthz"))
    #expect(RequestHeadNormalizer.absoluteForm("HTTP://127.0.0.1:8631")! == ("127.0.0.1:8631", "/"))
    #expect(
      RequestHeadNormalizer.absoluteForm("https://user@[::1]:8633/ipp/print?x=1")! == ("[::1]:8633", "/ipp/print?x=1"))
    #expect(RequestHeadNormalizer.absoluteForm("http://h?q")! == ("h", "/?q"))
    #expect(RequestHeadNormalizer.absoluteForm("/healthz") == nil)
    #expect(RequestHeadNormalizer.absoluteForm("*") == nil)
    #expect(RequestHeadNormalizer.absoluteForm("http:///nohost") == nil)
  }

  /// `requesting-user-name` and job names are printable before they are logged or stored: a
  /// newline once forged log lines.
  @Test func clientTextLosesItsControlCharacters() {
    #expect(IPPRequest.printable("ana\n2026-11-28 error forged") == "ana?2026-11-28 error forged")
    #expect(IPPRequest.printable("a\u{1B}[31mb\u{85}c\u{2028}d\te") == "a?[31mb?c?d?e")
    #expect(IPPRequest.printable("Zoë 🧾") == "Zoë 🧾")
    #expect(IPPRequest.printable(String(repeating: "x", count: 1000)).count == 255)
  }
}
