/// A signed webhook of the daemon's configuration file (`"webhooks": {"shop": {…}}`): a web shop
/// (Shopify, WooCommerce) or any sender that signs its body with HMAC-SHA256 posts its orders to
/// `POST /v1/webhooks/NAME`, and each delivery becomes a job (`template`, `printer`) or an order
/// of the configured routes (`routes`).
public struct WebhookSettings: Sendable, Equatable, Codable {
  /// `shopify`, `woocommerce`, or `hmac-sha256` (any sender; `header` names its signature).
  public var scheme: String
  /// The shared secret the sender signs with (Shopify's app client secret, WooCommerce's webhook
  /// secret).
  public var secret: String
  /// The template of the job a delivery makes (with `printer`, or the default printer).
  public var template: String?
  /// The printer of that job.
  public var printer: String?
  /// The routes whose tickets a delivery makes, as `POST /v1/orders` with `routes` (instead of
  /// `template`); an empty list is every route.
  public var routes: [String]?
  /// The locale of the receipts (default: the order's, then the template's).
  public var locale: String?
  /// `hmac-sha256`: the header that carries the signature (`X-Signature`).
  public var header: String?
  /// `hmac-sha256`: how the signature is written, `hex` (default) or `base64`.
  public var encoding: String?
  /// `hmac-sha256`: text before the signature in its header (`sha256=`).
  public var prefix: String?
  /// `hmac-sha256`: the header that names a delivery (the same on a retried one); without it a
  /// delivery is known by its body's SHA-256.
  public var deliveryHeader: String?

  /// The fields a webhook has (an unknown one is an error in the configuration file).
  public static let fields: Set<String> = [
    "scheme", "secret", "template", "printer", "routes", "locale", "header", "encoding", "prefix", "deliveryHeader",
  ]

  /// Creates a webhook's settings.
  public init(
    scheme: String, secret: String, template: String? = nil, printer: String? = nil, routes: [String]? = nil,
    locale: String? = nil, header: String? = nil, encoding: String? = nil, prefix: String? = nil,
    deliveryHeader: String? = nil
  ) {
    self.scheme = scheme
    self.secret = secret
    self.template = template
    self.printer = printer
    self.routes = routes
    self.locale = locale
    self.header = header
    self.encoding = encoding
    self.prefix = prefix
    self.deliveryHeader = deliveryHeader
  }
}
