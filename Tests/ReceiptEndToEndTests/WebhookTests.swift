import Foundation
import ReceiptTestSupport
import Testing

/// Web shops' signed webhooks on the shipped daemon: deliveries signed as Shopify, WooCommerce
/// and a generic sender sign them (Python's `hmac`, an implementation that is not ours, makes every
/// signature, in the header formats the vendors document) print once however often they are
/// retried; a forged, unsigned or re-signed-with-another-secret delivery is 401 and stores
/// nothing — not even a body that is no JSON gets as far as the parser.
@Suite(.timeLimit(.minutes(3))) struct WebhookTests {
  static let templates = Tool.packageRoot.appendingPathComponent("Templates").path
  static let secrets = [
    "shop": "shpss_5c3f0e3a9b1d4e7f8a2b6c0d", "woo": "wc-secret-7Hq2Lz9Xv4Nb", "pos": "pos-hmac-secret-1234567890",
  ]

  /// HMAC-SHA256 of `body` with `secret` in base64 or hex, by Python's standard library.
  static func sign(_ body: Data, secret: String, hex: Bool = false) throws -> String {
    let script = """
      import base64, hashlib, hmac, sys
      digest = hmac.new(sys.argv[1].encode(), sys.stdin.buffer.read(), hashlib.sha256).digest()
      print(digest.hex() if sys.argv[2] == "hex" else base64.b64encode(digest).decode())
      """
    let result = try Tool.run("python3", ["-c", script, secret, hex ? "hex" : "base64"], stdin: body)
    try #require(result.status == 0, "\(result.stderr)")
    return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  func daemon(_ work: URL, tokens: Bool = false) throws -> (Daemon, URL) {
    let printed = work.appendingPathComponent("printed")
    try FileManager.default.createDirectory(at: printed, withIntermediateDirectories: true)
    let config = """
      {"printers": {"counter": "dir:\(printed.path)"}, \(tokens ? #""tokens": ["api-token-1234567890"],"# : "")
       "routes": [{"name": "kitchen", "printer": "counter", "template": "kitchen"},
                  {"name": "counter", "printer": "counter", "template": "receipt"}],
       "webhooks": {
         "shop": {"scheme": "shopify", "secret": "\(Self.secrets["shop"]!)", "template": "receipt", "printer": "counter"},
         "woo": {"scheme": "woocommerce", "secret": "\(Self.secrets["woo"]!)", "routes": ["kitchen", "counter"]},
         "pos": {"scheme": "hmac-sha256", "secret": "\(Self.secrets["pos"]!)", "template": "receipt",
                 "header": "X-Signature", "prefix": "sha256=", "encoding": "hex", "deliveryHeader": "X-Delivery"}}}
      """
    try config.write(to: work.appendingPathComponent("serve.json"), atomically: true, encoding: .utf8)
    let daemon = try Daemon(
      arguments: [
        "--config", work.appendingPathComponent("serve.json").path, "--db",
        work.appendingPathComponent("queue.sqlite").path, "--templates", Self.templates,
      ], log: work.appendingPathComponent("serve.log"))
    return (daemon, printed)
  }

  static var order: Data {
    get throws { try Data(contentsOf: URL(fileURLWithPath: "\(templates)/Examples/restaurant.json")) }
  }

  func jobCount(_ daemon: Daemon, token: Bool = false) throws -> Int {
    let response = try daemon.request(
      "GET", "/v1/jobs?limit=200", headers: token ? ["Authorization": "Bearer api-token-1234567890"] : [:])
    return (response.json["jobs"] as? [Any])?.count ?? -1
  }

  @Test func aShopifyDeliveryPrintsOnceHoweverOftenItComes() throws {
    let work = try Tool.temporaryDirectory()
    let (daemon, printed) = try daemon(work)
    try daemon.start()
    defer { _ = daemon.terminate() }
    let body = try Self.order
    let headers = [
      "X-Shopify-Hmac-Sha256": try Self.sign(body, secret: Self.secrets["shop"]!),
      "X-Shopify-Webhook-Id": "b54557e4-bdd9-4b37-8a5f-bf7d70bcd043", "X-Shopify-Topic": "orders/create",
    ]
    let first = try daemon.request("POST", "/v1/webhooks/shop", body: body, headers: headers)
    #expect(first.status == 202, "\(String(decoding: first.body, as: UTF8.self))")
    let id = try #require(first.json["id"] as? String)
    for _ in 0..<3 {
      let again = try daemon.request("POST", "/v1/webhooks/shop", body: body, headers: headers)
      #expect(again.status == 200 && again.json["id"] as? String == id, "a retried delivery is the same job")
    }
    let done = waitUntil(seconds: 60) {
      (try? daemon.request("GET", "/v1/jobs/\(id)").json["state"] as? String) == "completed"
    }
    #expect(done)
    #expect(try jobCount(daemon) == 1)
    let files = try FileManager.default.contentsOfDirectory(atPath: printed.path).filter { $0.hasSuffix(".pdf") }
    #expect(files.count == 1, "\(files)")
    let metrics = String(decoding: try daemon.request("GET", "/metrics").body, as: UTF8.self)
    #expect(metrics.contains(#"receipt_webhook_deliveries_total{webhook="shop",outcome="accepted"} 1"#), "\(metrics)")
    #expect(metrics.contains(#"receipt_webhook_deliveries_total{webhook="shop",outcome="repeated"} 3"#), "\(metrics)")
  }

  @Test func aForgedDeliveryIsRefusedAndNothingIsStored() throws {
    let work = try Tool.temporaryDirectory()
    let (daemon, printed) = try daemon(work)
    try daemon.start()
    defer { _ = daemon.terminate() }
    let body = try Self.order
    var tampered = body
    tampered.append(contentsOf: Array(" ".utf8))
    let notJSON = Data("{\"order\": not json at all".utf8)
    let cases: [(String, Data, [String: String])] = [
      ("unsigned", body, ["X-Shopify-Webhook-Id": "1"]),
      ("another secret", body, ["X-Shopify-Hmac-Sha256": try Self.sign(body, secret: "shpss_someone-elses-secret!")]),
      ("a changed body", tampered, ["X-Shopify-Hmac-Sha256": try Self.sign(body, secret: Self.secrets["shop"]!)]),
      (
        "hex for base64", body, ["X-Shopify-Hmac-Sha256": try Self.sign(body, secret: Self.secrets["shop"]!, hex: true)]
      ),
      ("garbage", body, ["X-Shopify-Hmac-Sha256": "%%%"]),
      ("no JSON, forged", notJSON, ["X-Shopify-Hmac-Sha256": try Self.sign(body, secret: Self.secrets["shop"]!)]),
    ]
    for (what, data, headers) in cases {
      let response = try daemon.request("POST", "/v1/webhooks/shop", body: data, headers: headers)
      #expect(response.status == 401, "\(what): \(response.status) \(String(decoding: response.body, as: UTF8.self))")
    }
    // The generic scheme: a signature without its prefix, or for another webhook's secret.
    let pos = try daemon.request(
      "POST", "/v1/webhooks/pos", body: body,
      headers: ["X-Signature": try Self.sign(body, secret: Self.secrets["pos"]!, hex: true)])
    #expect(pos.status == 401, "the prefix is part of the header")
    let unknown = try daemon.request("POST", "/v1/webhooks/nobody", body: body, headers: [:])
    #expect(unknown.status == 404)
    #expect(try jobCount(daemon) == 0)
    #expect(try FileManager.default.contentsOfDirectory(atPath: printed.path).isEmpty)
    let metrics = String(decoding: try daemon.request("GET", "/metrics").body, as: UTF8.self)
    #expect(metrics.contains(#"receipt_webhook_deliveries_total{webhook="shop",outcome="refused"} 6"#), "\(metrics)")
  }

  /// WooCommerce's ping when a webhook is made (a signed form body) is answered, not printed; an
  /// order becomes the tickets of the webhook's routes. The generic scheme, with API tokens set,
  /// needs its signature and no token.
  @Test func wooCommerceAndAGenericSenderWithTokensSet() throws {
    let work = try Tool.temporaryDirectory()
    let (daemon, _) = try daemon(work, tokens: true)
    try daemon.start()
    defer { _ = daemon.terminate() }
    let ping = Data("webhook_id=12".utf8)
    let pinged = try daemon.request(
      "POST", "/v1/webhooks/woo", body: ping,
      headers: ["X-WC-Webhook-Signature": try Self.sign(ping, secret: Self.secrets["woo"]!)])
    #expect(pinged.status == 200 && pinged.json["status"] as? String == "ping", "\(pinged.json)")
    let body = try Self.order
    let woo = [
      "X-WC-Webhook-Signature": try Self.sign(body, secret: Self.secrets["woo"]!), "X-WC-Webhook-Delivery-ID": "4711",
      "X-WC-Webhook-Topic": "order.created",
    ]
    let order = try daemon.request("POST", "/v1/webhooks/woo", body: body, headers: woo)
    #expect(order.status == 202, "\(String(decoding: order.body, as: UTF8.self))")
    #expect((order.json["tickets"] as? [Any])?.count == 2, "kitchen and counter tickets: \(order.json)")
    let again = try daemon.request("POST", "/v1/webhooks/woo", body: body, headers: woo)
    #expect(again.status == 200 && again.json["id"] as? String == order.json["id"] as? String)

    let signature = "sha256=" + (try Self.sign(body, secret: Self.secrets["pos"]!, hex: true))
    let pos = try daemon.request(
      "POST", "/v1/webhooks/pos", body: body, headers: ["X-Signature": signature, "X-Delivery": "till-3-0042"])
    #expect(pos.status == 202, "\(String(decoding: pos.body, as: UTF8.self))")
    let api = try daemon.request("POST", "/v1/jobs", body: Data(#"{"template": "receipt", "data": {}}"#.utf8))
    #expect(api.status == 401, "the API itself still needs a token")
    #expect(try jobCount(daemon, token: true) == 3)
  }
}
