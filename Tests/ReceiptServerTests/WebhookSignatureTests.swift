import Crypto
import Foundation
import Testing

@testable import ReceiptServer

/// The signature check against Shopify's own documented examples: its OAuth documentation signs
/// `code=0907a61c0c8d55e99db179b68161bc00&shop=some-shop.myshopify.com&timestamp=1337178173` with
/// the secret `hush` to `4712bf92…4d20` (and with `&state=0.6784241404160823` to `700e2dad…4bf`),
/// in hex. A webhook's header carries the same HMAC-SHA256 in base64, so the documented digests,
/// re-encoded, check the webhook path too; a changed digit or body is refused.
@Suite struct WebhookSignatureTests {
  static let key = SymmetricKey(data: Data("hush".utf8))
  static let vectors = [
    (
      "code=0907a61c0c8d55e99db179b68161bc00&shop=some-shop.myshopify.com&timestamp=1337178173",
      "4712bf92ffc2917d15a2f5a273e39f0116667419aa4b6ac0b3baaf26fa3c4d20"
    ),
    (
      "code=0907a61c0c8d55e99db179b68161bc00&shop=some-shop.myshopify.com&state=0.6784241404160823&timestamp=1337178173",
      "700e2dadb827fcc8609e9d5ce208b2e9cdaab9df07390d2cbca10d7c328fc4bf"
    ),
  ]

  @Test func shopifysDocumentedDigestsVerify() throws {
    for (message, digest) in Self.vectors {
      let body = Data(message.utf8)
      try Webhook.verify(digest, named: "X-Signature", body: body, key: Self.key, encoding: .hex, prefix: "")
      let base64 = try #require(Webhook.hexBytes(digest)).base64EncodedString()
      try Webhook.verify(
        base64, named: "X-Shopify-Hmac-Sha256", body: body, key: Self.key, encoding: .base64, prefix: "")
      try Webhook.verify(
        "sha256=" + digest, named: "X-Signature", body: body, key: Self.key, encoding: .hex, prefix: "sha256=")
    }
  }

  @Test func anythingElseIsRefused() {
    let (message, digest) = Self.vectors[0]
    let body = Data(message.utf8)
    let changedDigit = String(digest.dropLast()) + (digest.last == "0" ? "1" : "0")
    let refused: [(String?, Data, Webhook.Encoding, String)] = [
      (changedDigit, body, .hex, ""), (digest, Data((message + "&x=1").utf8), .hex, ""), (nil, body, .hex, ""),
      (digest, body, .base64, ""), (digest, body, .hex, "sha256="), (String(digest.prefix(62)), body, .hex, ""),
      ("zz" + digest.dropFirst(2), body, .hex, ""),
    ]
    for (value, body, encoding, prefix) in refused {
      #expect(throws: Webhook.Refusal.self, "\(value ?? "nil") \(encoding)") {
        try Webhook.verify(value, named: "X-Signature", body: body, key: Self.key, encoding: encoding, prefix: prefix)
      }
    }
  }
}
