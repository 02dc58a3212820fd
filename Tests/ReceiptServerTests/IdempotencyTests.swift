import Foundation
import HTTPTypes
import Hummingbird
import ReceiptTestSupport
import Testing

@testable import ReceiptServer

/// The same Idempotency-Key with the same request is the same job (200), whatever the order
/// holds; with anything different it is 409 naming what differs. Real orders have arrays.
@Suite struct IdempotencyTests {
  func object(_ buffer: ByteBuffer) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: Data(buffer: buffer)) as? [String: Any]) ?? [:]
  }

  /// An order with arrays, nested objects, a 64-bit id and prices as strings.
  static let order = """
    {"id": 820982911946154508, "number": "W-1042", "currency": "EUR",
     "items": [{"name": "Tea", "qty": 2, "price": "3.50"}, {"name": "Cake", "qty": 1, "price": 4.80}],
     "taxes": [{"rate": 7, "amount": "0.77"}], "payments": [{"type": "card", "amount": 11.8}]}
    """

  /// The same order written differently: other member order, spacing and number spelling.
  static let sameOrderRewritten = """
    {"payments":[{"amount":11.80,"type":"card"}],"taxes":[{"amount":"0.77","rate":7.0}],
     "items":[{"qty":2,"name":"Tea","price":"3.50"},{"price":4.8,"name":"Cake","qty":1e0}],
     "currency":"EUR","number":"W-1042","id":820982911946154508}
    """

  /// The order with one quantity changed, and with one item (of an array) left out.
  static let otherQuantity = order.replacingOccurrences(of: #""qty": 2"#, with: #""qty": 3"#)
  static let itemRemoved = order.replacingOccurrences(of: #", {"name": "Cake", "qty": 1, "price": 4.80}"#, with: "")

  func post(
    _ client: some TestClientProtocol, key: String, body: String
  ) async throws -> (HTTPResponse.Status, [String: Any]) {
    try await client.execute(
      uri: "/v1/jobs", method: .post,
      headers: [.contentType: "application/json", HTTPField.Name("Idempotency-Key")!: key],
      body: ByteBuffer(string: body)
    ) { ($0.status, object($0.body)) }
  }

  static func body(data: String = order, copies: Int? = nil, locale: String? = nil, template: String = "receipt")
    -> String
  {
    var fields = ["\"template\": \"\(template)\"", "\"data\": \(data)"]
    if let copies { fields.append("\"copies\": \(copies)") }
    if let locale { fields.append("\"locale\": \"\(locale)\"") }
    return "{" + fields.joined(separator: ", ") + "}"
  }

  /// The order as Foundation's JSON reader sees it (not ours): the oracle for "the same order".
  static func parsed(_ json: String) -> NSObject? {
    try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? NSObject
  }

  @Test(arguments: StoreKind.allCases) func theSameRequestWithArraysIsTheSameJob(store: StoreKind) async throws {
    // The rewrite is another text of the same JSON value; the variants are other values.
    try #require(
      Self.sameOrderRewritten != Self.order && Self.parsed(Self.sameOrderRewritten) == Self.parsed(Self.order))
    try #require(Self.parsed(Self.otherQuantity) != Self.parsed(Self.order))
    try #require(Self.parsed(Self.itemRemoved) != Self.parsed(Self.order))
    let fixture = try ServerFixture(store: store)
    try await fixture.server.application().test(.router) { client in
      let (first, created) = try await post(client, key: "till-3/1042", body: Self.body(copies: 2, locale: "de_DE"))
      #expect(first == .accepted)
      let (again, same) = try await post(client, key: "till-3/1042", body: Self.body(copies: 2, locale: "de_DE"))
      #expect(again == .ok, "a retry of the very same bytes")
      #expect(same["id"] as? String == created["id"] as? String)
      let rewritten = Self.body(data: Self.sameOrderRewritten, copies: 2, locale: "de_DE")
      let (third, also) = try await post(client, key: "till-3/1042", body: rewritten)
      #expect(third == .ok, "member order, spacing and 4.80 vs 4.8 do not make another order")
      #expect(also["id"] as? String == created["id"] as? String)
    }
    #expect(try await fixture.server.store.jobs(state: nil, printer: nil, limit: 10, before: nil).count == 1)
  }

  @Test(arguments: [
    (body(copies: 3, locale: "de_DE"), "copies"),
    (body(copies: 2, locale: "fr_FR"), "locale"),
    (body(copies: 2), "locale"),
    (body(copies: 2, locale: "de_DE", template: "kitchen"), "template"),
    (body(data: otherQuantity, copies: 2, locale: "de_DE"), "data"),
    (body(data: itemRemoved, copies: 2, locale: "de_DE"), "data"),
  ])
  func aKeyReusedForADifferentRequestIs409(body: String, field: String) async throws {
    let fixture = try ServerFixture()
    try await fixture.server.application().test(.router) { client in
      #expect(try await post(client, key: "k-1", body: Self.body(copies: 2, locale: "de_DE")).0 == .accepted)
      let (status, problem) = try await post(client, key: "k-1", body: body)
      #expect(status == .conflict)
      #expect((problem["detail"] as? String)?.contains("different \(field)") == true, "\(problem)")
    }
    #expect(try await fixture.server.store.jobs(state: nil, printer: nil, limit: 10, before: nil).count == 1)
  }

  @Test(arguments: StoreKind.allCases) func duplicateKeysAreRefusedSoTheStoredOrderIsTheCheckedOne(store: StoreKind)
    async throws
  {
    let fixture = try ServerFixture(store: store)
    try await fixture.server.application().test(.router) { client in
      for body in [
        #"{"template": "receipt", "data": {"first": 1}, "copies": 10, "data": {"last": 2}}"#,
        #"{"template": "receipt", "template": "kitchen", "data": {}}"#,
        #"{"template": "receipt", "data": {"items": [{"qty": 1, "qty": 100}]}}"#,
      ] {
        let (status, problem) = try await post(client, key: UUID().uuidString, body: body)
        #expect(status == .badRequest, "\(body)")
        #expect((problem["detail"] as? String)?.contains("duplicate key") == true, "\(problem)")
      }
    }
    #expect(try await fixture.server.store.jobs(state: nil, printer: nil, limit: 10, before: nil).isEmpty)
  }

  @Test(arguments: StoreKind.allCases) func theStoredOrderIsTheBytesThatWereChecked(store: StoreKind) async throws {
    let fixture = try ServerFixture(store: store)
    let data = #"{"id": 820982911946154508, "items": [{"price": "4.80"}]}"#
    try await fixture.server.application().test(.router) { client in
      let (status, job) = try await post(
        client, key: "exact", body: #"{"data" : "# + data + #" , "template": "receipt"}"#)
      #expect(status == .accepted)
      let stored = try #require(try await fixture.server.store.job(job["id"] as? String ?? ""))
      #expect(String(decoding: stored.data, as: UTF8.self) == data)
    }
  }
}
