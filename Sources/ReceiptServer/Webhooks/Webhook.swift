import Crypto
import Foundation
import HTTPTypes
import ReceiptKit

/// A signed webhook as the daemon checks it: who signs (the scheme's headers and encoding), with
/// what secret, and what a delivery becomes. Made from ``WebhookSettings`` once, at start-up, so
/// a request never parses a setting.
struct Webhook: Sendable {
  /// How a sender signs and names its deliveries.
  enum Scheme: String, Sendable, CaseIterable {
    /// Shopify: `X-Shopify-Hmac-Sha256`, the base64 HMAC-SHA256 of the raw body with the app's
    /// client secret; a delivery is `X-Shopify-Webhook-Id`, the same on every retry
    /// (shopify.dev, "Deliver webhooks through HTTPS", verify a webhook / handle duplicates).
    case shopify
    /// WooCommerce: `X-WC-Webhook-Signature`, the base64 HMAC-SHA256 of the raw body with the
    /// webhook's secret; a delivery is `X-WC-Webhook-Delivery-ID` (WooCommerce REST API docs,
    /// "Webhooks": delivery/payload headers).
    case woocommerce
    /// Any sender: the signature's header, encoding and prefix are configured.
    case hmacSHA256 = "hmac-sha256"
  }

  /// How the signature's bytes are written in its header.
  enum Encoding: String, Sendable {
    case hex, base64
  }

  /// What a delivery becomes.
  enum Target: Sendable, Equatable {
    /// One job of a template on a printer (nil: the default printer).
    case job(template: String, printer: String?)
    /// The tickets of the configured routes (nil: every route).
    case order(routes: [String]?)
  }

  let name: String
  let scheme: Scheme
  let key: SymmetricKey
  let signatureHeader: HTTPField.Name
  let encoding: Encoding
  let prefix: String
  /// The header that names a delivery (nil: the body's SHA-256 names it).
  let deliveryHeader: HTTPField.Name?
  let target: Target
  let locale: String?

  /// Checks a webhook's settings against the daemon's printers, routes and templates.
  init(name: String, settings: WebhookSettings, printers: [String], routes: [String], templates: URL) throws {
    func fail(_ message: String) -> ReceiptError { ReceiptError(.data, "webhook '\(name)': \(message)") }
    guard !name.isEmpty, name.count <= 64,
      name.unicodeScalars.allSatisfy({
        $0.isASCII && ($0.properties.isAlphabetic || "0123456789-_".unicodeScalars.contains($0))
      })
    else {
      throw ReceiptError(
        .data, "webhook '\(name)': a name is 1 to 64 letters, digits, '-' or '_' (it is the URL's last part)")
    }
    self.name = name
    guard let scheme = Scheme(rawValue: settings.scheme) else {
      throw fail("scheme '\(settings.scheme)' is not \(Scheme.allCases.map(\.rawValue).joined(separator: ", "))")
    }
    self.scheme = scheme
    guard settings.secret.utf8.count >= 16 else {
      throw fail("the secret must have at least 16 characters (the sender's signing secret)")
    }
    key = SymmetricKey(data: Data(settings.secret.utf8))
    switch scheme {
    case .shopify:
      signatureHeader = .shopifySignature
      deliveryHeader = .shopifyWebhookID
      encoding = .base64
      prefix = ""
    case .woocommerce:
      signatureHeader = .wooCommerceSignature
      deliveryHeader = .wooCommerceDeliveryID
      encoding = .base64
      prefix = ""
    case .hmacSHA256:
      guard let header = settings.header.flatMap({ HTTPField.Name($0) }) else {
        throw fail("an hmac-sha256 webhook needs header, the name of its signature's header (X-Signature)")
      }
      signatureHeader = header
      guard let encoding = Encoding(rawValue: settings.encoding ?? "hex") else {
        throw fail("encoding is hex or base64, not '\(settings.encoding ?? "")'")
      }
      self.encoding = encoding
      prefix = settings.prefix ?? ""
      if let delivery = settings.deliveryHeader {
        guard let name = HTTPField.Name(delivery) else { throw fail("deliveryHeader '\(delivery)' is no header name") }
        deliveryHeader = name
      } else {
        deliveryHeader = nil
      }
    }
    if scheme != .hmacSHA256,
      settings.header != nil || settings.encoding != nil || settings.prefix != nil
        || settings.deliveryHeader != nil
    {
      throw fail("header, encoding, prefix and deliveryHeader are set by the \(scheme.rawValue) scheme")
    }
    switch (settings.template, settings.routes) {
    case (let template?, nil):
      guard (try? TemplateLibrary(directory: templates))?.isTemplate(template) == true else {
        throw fail("no template named '\(template)' in \(templates.path)")
      }
      if let printer = settings.printer, !printers.contains(printer) {
        throw fail("no printer named '\(printer)'; printers: \(printers.joined(separator: ", "))")
      }
      target = .job(template: template, printer: settings.printer)
    case (nil, let names?):
      guard settings.printer == nil else { throw fail("routes name their printers; leave out printer") }
      guard !routes.isEmpty else { throw fail("routes needs the daemon's routes; add \"routes\" to the configuration") }
      if let unknown = names.first(where: { !routes.contains($0) }) {
        throw fail("no route named '\(unknown)'; routes: \(routes.joined(separator: ", "))")
      }
      target = .order(routes: names.isEmpty ? nil : names)
    default:
      throw fail("give template (and printer) for one job per delivery, or routes for an order's tickets")
    }
    locale = settings.locale
  }
}
