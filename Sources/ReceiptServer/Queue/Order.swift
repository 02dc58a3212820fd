import Foundation

/// An order as the queue keeps it: what was sent to `POST /v1/orders`, and the tickets (jobs)
/// its routes made of it, stored in one transaction with it.
struct Order: Codable, Sendable, Equatable {
  var id: String
  var idempotencyKey: String?
  /// The order JSON as received.
  var data: Data
  var locale: String?
  /// The routes asked for, comma-separated (nil: every configured route).
  var routes: String?
  var createdAt: Date

  /// The stored fields (the `orders` table's columns).
  enum CodingKeys: String, CodingKey, CaseIterable {
    case id, idempotencyKey, data, locale, routes, createdAt
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
