public import Foundation

/// An order as the queue keeps it: what was sent to `POST /v1/orders`, and the tickets (jobs)
/// its routes made of it, stored in one transaction with it.
public struct Order: Codable, Sendable, Equatable {
  public var id: String
  public var idempotencyKey: String?
  /// The order JSON as received.
  public var data: Data
  public var locale: String?
  /// The routes asked for, comma-separated (nil: every configured route).
  public var routes: String?
  public var createdAt: Date

  /// The order's state from its tickets': `completed` when all printed, `failed` when one failed
  /// or is dead, `canceled` when all were canceled, `queued` while none started, else `printing`.
  public static func state(of jobs: [Job]) -> String {
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
public struct OrderRequest: Sendable {
  public var data: Data
  public var locale: String?
  /// The routes asked for (nil: all).
  public var routes: [String]?
  /// One job per ticket, in route order.
  public var tickets: [JobRequest]

  /// Creates a request.
  public init(data: Data, locale: String?, routes: [String]?, tickets: [JobRequest]) {
    self.data = data
    self.locale = locale
    self.routes = routes
    self.tickets = tickets
  }
}
