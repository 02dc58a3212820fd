import Foundation

/// An order as the queue keeps it: what was sent to `POST /v1/orders`, and the tickets (jobs)
/// its routes made of it, stored in one transaction with it.
struct Order: Codable, Sendable, Equatable {
  var id: String
  var idempotencyKey: String?
  /// The order JSON as received.
  var data: Data
  var locale: String?
  /// The routes asked for, by name (nil: every configured route).
  var routes: [String]?
  var createdAt: Date

  /// The stored fields (the `orders` table's columns).
  enum CodingKeys: String, CodingKey, CaseIterable {
    case id, idempotencyKey, data, locale, routes, createdAt
  }

  /// The routes as the `routes` column keeps them: names joined by commas (a route's name is
  /// letters, digits, `-` and `_`: ``Route/checkRoutes(_:printers:templates:)``).
  var storedRoutes: String? { routes?.joined(separator: ",") }

  /// The routes of a stored `routes` column.
  static func routes(stored: String?) -> [String]? {
    stored.map { $0.split(separator: ",").map(String.init) }
  }

  init(id: String, idempotencyKey: String?, data: Data, locale: String?, routes: [String]?, createdAt: Date) {
    self.id = id
    self.idempotencyKey = idempotencyKey
    self.data = data
    self.locale = locale
    self.routes = routes
    self.createdAt = createdAt
  }

  init(from decoder: any Decoder) throws {
    let row = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      id: try row.decode(String.self, forKey: .id),
      idempotencyKey: try row.decodeIfPresent(String.self, forKey: .idempotencyKey),
      data: try row.decode(Data.self, forKey: .data), locale: try row.decodeIfPresent(String.self, forKey: .locale),
      routes: Self.routes(stored: try row.decodeIfPresent(String.self, forKey: .routes)),
      createdAt: try row.decode(Date.self, forKey: .createdAt))
  }

  func encode(to encoder: any Encoder) throws {
    var row = encoder.container(keyedBy: CodingKeys.self)
    try row.encode(id, forKey: .id)
    try row.encode(idempotencyKey, forKey: .idempotencyKey)
    try row.encode(data, forKey: .data)
    try row.encode(locale, forKey: .locale)
    try row.encode(storedRoutes, forKey: .routes)
    try row.encode(createdAt, forKey: .createdAt)
  }

  /// The order's state from its tickets': `completed` when all printed, `failed` when one failed
  /// or is dead, `canceled` when all were canceled, `queued` while none started, else `printing`.
  static func state(of jobs: [Job]) -> String {
    let states = Set(jobs.map(\.state))
    if states == [.completed] { return "completed" }
    if states.contains(.failed) || states.contains(.dead) { return "failed" }
    if states == [.canceled] { return "canceled" }
    if states.isSubset(of: [.completed, .canceled]) { return "completed" }
    if states == [.queued] { return "queued" }
    return "printing"
  }
}

/// An order to store: the order as sent, and its tickets.
struct OrderRequest: Sendable {
  var data: Data
  var locale: String?
  /// The routes asked for (nil: all).
  var routes: [String]?
  /// One job per ticket, in route order.
  var tickets: [JobRequest]

  /// Creates a request.
  init(data: Data, locale: String?, routes: [String]?, tickets: [JobRequest]) {
    self.data = data
    self.locale = locale
    self.routes = routes
    self.tickets = tickets
  }
}
