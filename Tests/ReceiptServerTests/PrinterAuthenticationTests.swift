import Foundation
import Testing

@testable import ReceiptServer

/// Printers that poll authenticate with HTTP Basic or Digest: the Digest arithmetic is RFC 2617's
/// own example (section 3.5: Mufasa, "Circle Of Life"), and the header parser reads its
/// Authorization header.
@Suite struct PrinterAuthenticationTests {
  @Test func theDigestIsRFC2617sExample() {
    let response = PrinterAuthentication.digestResponse(
      username: "Mufasa", realm: "testrealm@host.com", password: "Circle Of Life", method: "GET",
      uri: "/dir/index.html", nonce: "dcd98b7102dd2f0e8b11d0f600bfb0c093", nc: "00000001", cnonce: "0a4f113b")
    #expect(response == "6629fae49393a05397450978507c4ef1")
  }

  @Test func theAuthorizationHeaderIsRead() {
    let fields = PrinterAuthentication.digestFields(
      #"username="Mufasa", realm="testrealm@host.com", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", uri="/dir/index.html", qop=auth, nc=00000001, cnonce="0a4f113b", response="6629fae49393a05397450978507c4ef1", opaque="5ccc069c403ebaf9f0171e9517f40e41""#
    )
    #expect(fields["username"] == "Mufasa" && fields["qop"] == "auth" && fields["nc"] == "00000001")
    #expect(fields["uri"] == "/dir/index.html" && fields["response"] == "6629fae49393a05397450978507c4ef1")
  }

  @Test func basicCredentialsMatchExactly() {
    let header = "Basic " + Data("till:pw".utf8).base64EncodedString()
    #expect(PrinterAuthentication.basicMatches(header, "till:pw"))
    #expect(!PrinterAuthentication.basicMatches(header, "till:pw2"))
    #expect(!PrinterAuthentication.basicMatches("Basic !!!", "till:pw"))
  }
}
