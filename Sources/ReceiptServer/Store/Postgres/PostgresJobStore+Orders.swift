public import Foundation
import PostgresNIO

/// Orders, reprints and failover in the PostgreSQL store.
extension PostgresJobStore {
  public func acceptOrder(_ request: OrderRequest, idempotencyKey: String?) async throws -> (
    order: Order, jobs: [Job], created: Bool
  ) {
    try await submitters.run {
      try self.idempotent(key: idempotencyKey, find: { try self.order(idempotencyKey: $0) }) {
        try self.transaction { connection in
          try self.insert(request, idempotencyKey: idempotencyKey, now: Date(), connection)
        }
      }
    }
  }

  /// An order and its tickets in one transaction (all or none), or the order its key names.
  private func insert(_ request: OrderRequest, idempotencyKey key: String?, now: Date, _ connection: PostgresConnection)
    throws -> (order: Order, jobs: [Job], created: Bool)
  {
    if let key, let existing = try order(idempotencyKey: key, connection) { return (existing.0, existing.1, false) }
    let order = Order(
      id: UUID().uuidString.lowercased(), idempotencyKey: key, data: request.data, locale: request.locale,
      routes: request.routes?.joined(separator: ","), createdAt: now)
    try sessions.run(
      """
      INSERT INTO orders (id, "idempotencyKey", data, locale, routes, "createdAt")
      VALUES (\(order.id), \(key), \(order.data), \(order.locale), \(order.routes), \(now))
      """, on: connection)
    let jobs = try request.tickets.map {
      try insert($0, idempotencyKey: nil, orderID: order.id, now: now, connection).job
    }
    return (order, jobs, true)
  }

  private func order(idempotencyKey key: String) throws -> (order: Order, jobs: [Job], created: Bool)? {
    try transaction { try order(idempotencyKey: key, $0) }.map { ($0.0, $0.1, false) }
  }

  private func order(idempotencyKey key: String, _ connection: PostgresConnection) throws -> (Order, [Job])? {
    let rows = try sessions.run(
      #"SELECT id, "idempotencyKey", data, locale, routes, "createdAt" FROM orders WHERE "idempotencyKey" = \#(key)"#,
      on: connection)
    guard let row = rows.first else { return nil }
    let order = try Self.order(row)
    return (order, try tickets(of: order.id, connection))
  }

  private static func order(_ row: PostgresRow) throws -> Order {
    let (id, key, data, locale, routes, createdAt) = try row.decode(
      (String, String?, Data, String?, String?, Date).self)
    return Order(id: id, idempotencyKey: key, data: data, locale: locale, routes: routes, createdAt: createdAt)
  }

  private func tickets(of orderID: String, _ connection: PostgresConnection) throws -> [Job] {
    try sessions.run(
      #"SELECT \#(unescaped: PostgresSchema.jobColumns) FROM job WHERE "orderID" = \#(orderID) ORDER BY sequence"#,
      on: connection
    ).map(Job.init(postgres:))
  }

  public func order(_ id: String) throws -> (order: Order, jobs: [Job])? {
    try transaction { connection in
      let rows = try sessions.run(
        #"SELECT id, "idempotencyKey", data, locale, routes, "createdAt" FROM orders WHERE id = \#(id)"#,
        on: connection)
      guard let row = rows.first else { return nil }
      return (try Self.order(row), try tickets(of: id, connection))
    }
  }

  public func reprint(_ original: Job, idempotencyKey: String?, now: Date) throws -> (job: Job, created: Bool) {
    try idempotent(key: idempotencyKey, find: { try self.job(idempotencyKey: $0).map { ($0, false) } }) {
      try transaction { connection in
        // The printer's submission lock also numbers concurrent reprints one after another.
        try sessions.run(
          "SELECT pg_advisory_xact_lock(\(PostgresSchema.submitLock), hashtext(\(original.printer)))", on: connection)
        let count = try sessions.run(#"SELECT count(*) FROM job WHERE "reprintOf" = \#(original.id)"#, on: connection)
        let number = (try count.first?.decode(Int.self) ?? 0) + 1
        return try insert(.reprint(of: original, number: number), idempotencyKey: idempotencyKey, now: now, connection)
      }
    }
  }

  public func failOver(printer: String, reason: String, now: Date) throws -> [Job] {
    try jobs(
      #"""
      UPDATE job SET "fallbackFor" = coalesce("fallbackFor", printer), printer = fallback,
        "failoverReason" = \#(reason), attempts = 0, "cupsJobID" = NULL, "printerState" = NULL,
        "notBefore" = \#(now), "updatedAt" = \#(now)
      WHERE printer = \#(printer) AND state = 'queued' AND fallback IS NOT NULL AND fallback <> \#(printer)
      RETURNING \#(unescaped: PostgresSchema.jobColumns)
      """#
    ).sorted { $0.sequence < $1.sequence }
  }
}
