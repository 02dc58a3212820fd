import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOFoundationEssentialsCompat
import ReceiptKit

/// `POST /v1/webhooks/NAME`: web shops push their orders here, signed (``Webhook``). The raw body
/// is read within the size limit and its signature checked before anything parses it; a missing
/// or wrong signature is 401 and nothing is stored. A signed delivery becomes the webhook's job or
/// order, stored durably before 202, with the delivery's name as its idempotency key: a retried
/// delivery is the same job (200). The API's bearer tokens do not guard it — the signature does.
struct WebhookFront: Sendable {
  /// The path under which each webhook has its URL.
  static let path = "/v1/webhooks/"
  let webhooks: [String: Webhook]
  let configuration: ReceiptServer.Configuration
  let store: any JobStore
  let metrics: ServerMetrics
  let logger: Logger

  func add(to router: Router<BasicRequestContext>) {
    router.post("v1/webhooks/:name") { request, context in
      try await self.deliver(context.parameters.require("name"), request)
    }
  }

  func deliver(_ name: String, _ request: Request) async throws -> Response {
    guard let webhook = webhooks[name] else { throw Problem.notFound("no webhook named '\(name)'") }
    let body: Data
    do {
      body = Data(buffer: try await request.body.collect(upTo: configuration.maxBodyBytes))
    } catch {
      throw Problem(
        status: .contentTooLarge, title: "Content too large",
        detail: "the body exceeds \(configuration.maxBodyBytes) bytes (maxBodyBytes)")
    }
    do {
      try webhook.verify(body: body, headers: request.headers)
    } catch {
      logger.warning("webhook \(name): a delivery was refused: \(error.reason)")
      metrics.countWebhook(name, accepted: nil)
      throw Problem(
        status: .unauthorized, title: "Unauthorized",
        detail: "\(error.reason); the sender must sign the raw body with this webhook's secret")
    }
    let delivery = webhook.delivery(body: body, headers: request.headers)
    // WooCommerce pings a new webhook with a form body (`webhook_id=12`), signed: answered, not
    // printed (a refused ping would keep the webhook from being activated).
    if webhook.scheme == .woocommerce, body.first != UInt8(ascii: "{"),
      String(decoding: body, as: UTF8.self).hasPrefix("webhook_id=")
    {
      return json(WebhookPing(webhook: name, status: "ping"))
    }
    let key = webhook.idempotencyKey(delivery: delivery)
    let locale = webhook.locale.map { #", "locale": \#(Self.quoted($0))"# } ?? ""
    switch webhook.target {
    case .job(let template, let printer):
      // The job's fields around the body, which is parsed as the job's data (and checked as
      // `POST /v1/jobs` checks it): the template and printer come from the configuration.
      var wrapped = Data(#"{"template": \#(Self.quoted(template))"#.utf8)
      if let printer { wrapped += Data(#", "printer": \#(Self.quoted(printer))"#.utf8) }
      wrapped += Data(#"\#(locale), "data": "#.utf8) + body + Data("}".utf8)
      let job = try JobRequest(body: wrapped, configuration: configuration)
      let (stored, created) = try await store.accept(job, idempotencyKey: key)
      if !created, !job.differences(from: stored).isEmpty {
        throw Problem.conflict("delivery \(delivery) of webhook \(name) came again with a different body")
      }
      metrics.countWebhook(name, accepted: created)
      logger.info("webhook \(name): delivery \(delivery) is job \(stored.id)\(created ? "" : " (again)")")
      return json(
        JobResponse(stored), status: created ? .accepted : .ok, headers: [.location: "/v1/jobs/\(stored.id)"])
    case .order(let routes):
      var wrapped = Data("{".utf8)
      if let routes { wrapped += Data(#""routes": [\#(routes.map(Self.quoted).joined(separator: ", "))], "#.utf8) }
      wrapped += Data(#""data": "#.utf8) + body + Data("\(locale)}".utf8)
      let order = try OrderRequest(body: wrapped, configuration: configuration)
      let (stored, jobs, created) = try await store.acceptOrder(order, idempotencyKey: key)
      if !created, !order.differences(from: stored).isEmpty {
        throw Problem.conflict("delivery \(delivery) of webhook \(name) came again with a different body")
      }
      if created { for job in jobs { metrics.countTicket(route: job.route ?? "") } }
      metrics.countWebhook(name, accepted: created)
      logger.info("webhook \(name): delivery \(delivery) is order \(stored.id)\(created ? "" : " (again)")")
      return json(
        OrderResponse(stored, jobs: jobs), status: created ? .accepted : .ok,
        headers: [.location: "/v1/orders/\(stored.id)"])
    }
  }
}

extension WebhookFront {
  /// A string as a JSON string literal (the parser's own serialization).
  static func quoted(_ text: String) -> String { String(decoding: JSONValue.string(text).serialized, as: UTF8.self) }
}

/// The answer to a WooCommerce ping.
struct WebhookPing: Codable {
  var webhook: String
  var status: String
}
