import Foundation
import PostgresNIO

/// Orders in the PostgreSQL store.
extension PostgresJobStore {
  func order(_ id: String) async throws -> (order: Order, jobs: [Job])? {
    try await transaction { connection in
      let rows = try await connection.query(
        "SELECT \(unescaped: Self.orderColumns) FROM orders WHERE id = \(id)",
        logger: self.logger
      ).collect()
      guard let row = rows.first else { return nil }
      return (try Self.order(row), try await self.tickets(of: id, connection))
    }
  }

  /// The order an idempotency key names, with its tickets, in an open transaction.
  func order(idempotencyKey key: String, _ connection: PostgresConnection) async throws -> (Order, [Job])? {
    let rows = try await connection.query(
      #"SELECT \#(unescaped: Self.orderColumns) FROM orders WHERE "idempotencyKey" = \#(key)"#,
      logger: logger
    ).collect()
    guard let row = rows.first else { return nil }
    let order = try Self.order(row)
    return (order, try await tickets(of: order.id, connection))
  }

  /// The `orders` table's columns, from ``Order/CodingKeys`` (quoted: some are mixed case).
  static let orderColumns = Order.CodingKeys.allCases.map { #""\#($0.rawValue)""# }.joined(separator: ", ")

  /// An order from a row with ``orderColumns``, read by name.
  private static func order(_ row: PostgresRow) throws -> Order {
    try Order(from: PostgresRowDecoder(row))
  }

  private func tickets(of orderID: String, _ connection: PostgresConnection) async throws -> [Job] {
    try await connection.query(
      #"SELECT \#(unescaped: PostgresSchema.jobColumns) FROM job WHERE "orderID" = \#(orderID) ORDER BY sequence"#,
      logger: logger
    ).collect().map(Job.init(postgres:))
  }
}
