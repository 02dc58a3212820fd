import Crypto
import Foundation
import HTTPTypes

extension Webhook {
  /// Why a delivery is refused before its body is read as anything.
  struct Refusal: Error, Equatable {
    let reason: String
  }

  /// Checks the delivery's signature over its raw body: the header present, decodable in the
  /// scheme's encoding after its prefix, and the HMAC-SHA256 of the body with the secret —
  /// compared in constant time (swift-crypto's `isValidAuthenticationCode`).
  func verify(body: Data, headers: HTTPFields) throws(Refusal) {
    try Self.verify(
      headers[signatureHeader], named: signatureHeader.canonicalName, body: body, key: key, encoding: encoding,
      prefix: prefix)
  }

  /// The check itself, on a header's value (nil: absent) named `header` in messages.
  static func verify(
    _ value: String?, named header: String, body: Data, key: SymmetricKey, encoding: Encoding, prefix: String
  ) throws(Refusal) {
    guard let value else { throw Refusal(reason: "no \(header) header") }
    guard value.hasPrefix(prefix) else {
      throw Refusal(reason: "the \(header) header does not start with '\(prefix)'")
    }
    let text = value.dropFirst(prefix.count).trimmingCharacters(in: .whitespaces)
    let signature: Data?
    switch encoding {
    case .base64: signature = Data(base64Encoded: text)
    case .hex: signature = Self.hexBytes(text)
    }
    guard let signature, signature.count == SHA256.byteCount else {
      throw Refusal(reason: "the \(header) header is not an HMAC-SHA256 in \(encoding.rawValue)")
    }
    guard HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: body, using: key) else {
      throw Refusal(reason: "the signature does not match the body and this webhook's secret")
    }
  }

  /// The delivery's name, the same on every retry of it: the scheme's header, else (or when the
  /// sender sends none) the body's SHA-256 — so a retried delivery is one job either way.
  func delivery(body: Data, headers: HTTPFields) -> String {
    if let header = deliveryHeader, let id = headers[header], !id.isEmpty, id.utf8.count <= 128,
      id.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F })
    {
      return id
    }
    return "sha256-" + ArchiveFile.sha256(body)
  }

  /// The idempotency key of a delivery: the webhook's name and the delivery's.
  func idempotencyKey(delivery: String) -> String { "webhook:\(name):\(delivery)" }

  /// Bytes of an even-length hex string; nil for anything else.
  static func hexBytes(_ text: String) -> Data? {
    let digits = Array(text.utf8)
    guard digits.count.isMultiple(of: 2) else { return nil }
    var bytes = Data(capacity: digits.count / 2)
    var i = 0
    while i < digits.count {
      guard let high = hexValue(digits[i]), let low = hexValue(digits[i + 1]) else { return nil }
      bytes.append(high << 4 | low)
      i += 2
    }
    return bytes
  }

  private static func hexValue(_ c: UInt8) -> UInt8? {
    switch c {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
    default: nil
    }
  }
}
