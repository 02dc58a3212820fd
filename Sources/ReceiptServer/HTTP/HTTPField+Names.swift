import HTTPTypes

/// The header fields of the daemon's own and of the standards HTTPTypes does not name, spelled
/// once (a name is checked when it is made; these are made once, not per request).
extension HTTPField.Name {
  static let idempotencyKey = Self("Idempotency-Key")!
  static let shopifySignature = Self("X-Shopify-Hmac-Sha256")!
  static let shopifyWebhookID = Self("X-Shopify-Webhook-Id")!
  static let wooCommerceSignature = Self("X-WC-Webhook-Signature")!
  static let wooCommerceDeliveryID = Self("X-WC-Webhook-Delivery-ID")!
  static let reprDigest = Self("Repr-Digest")!
  static let receiptCutLength = Self("Receipt-Cut-Length")!
  static let receiptCutLengthMillimetres = Self("Receipt-Cut-Length-Mm")!
  static let receiptCutLengthDots = Self("Receipt-Cut-Length-Dots")!
  static let receiptPages = Self("Receipt-Pages")!
  static let receiptESCPOSBytes = Self("Receipt-ESCPOS-Bytes")!
  static let lastEventID = Self("Last-Event-ID")!
  static let xAccelBuffering = Self("X-Accel-Buffering")!
  static let xContentTypeOptions = Self("X-Content-Type-Options")!
  static let referrerPolicy = Self("Referrer-Policy")!
}
