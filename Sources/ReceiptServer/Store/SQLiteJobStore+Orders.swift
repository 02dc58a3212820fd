public import Foundation
import GRDB

/// Orders, reprints, failover and archive records in the SQLite store.
extension SQLiteJobStore {
  public func acceptOrder(_ request: OrderRequest, idempotencyKey: String?) async throws -> (
    order: Order, jobs: [Job], created: Bool
  ) {
    guard
      case .order(let order, let jobs, let created) = try await committer.submit(.order(request, key: idempotencyKey))
    else { fatalError("the committer answers an order with an order") }
    if created { for printer in Set(jobs.map(\.printer)) { notify(printer) } }
    return (order, jobs, created)
  }

  /// Stores an order and all its tickets in an open write transaction (all or none), or finds
  /// the order its key names.
  static func insert(_ request: OrderRequest, idempotencyKey: String?, now: Date, _ db: Database) throws -> (
    Order, [Job], Bool
  ) {
    if let key = idempotencyKey, let existing = try Order.filter(Column("idempotencyKey") == key).fetchOne(db) {
      return (existing, try tickets(of: existing.id, db), false)
    }
    let order = Order(
      id: UUID().uuidString.lowercased(), idempotencyKey: idempotencyKey, data: request.data, locale: request.locale,
      routes: request.routes?.joined(separator: ","), createdAt: now)
    try order.insert(db)
    let jobs = try request.tickets.map { try insert($0, idempotencyKey: nil, orderID: order.id, now: now, db).0 }
    return (order, jobs, true)
  }

  static func tickets(of orderID: String, _ db: Database) throws -> [Job] {
    try Job.filter(Column("orderID") == orderID).order(Column("sequence")).fetchAll(db)
  }

  public func order(_ id: String) throws -> (order: Order, jobs: [Job])? {
    try read { db in
      guard let order = try Order.filter(Column("id") == id).fetchOne(db) else { return nil }
      return (order, try Self.tickets(of: id, db))
    }
  }

  public func reprint(_ original: Job, idempotencyKey: String?, now: Date) throws -> (job: Job, created: Bool) {
    let result = try write { db in
      let number = try Job.filter(Column("reprintOf") == original.id).fetchCount(db) + 1
      return try Self.insert(.reprint(of: original, number: number), idempotencyKey: idempotencyKey, now: now, db)
    }
    if result.1 { notify(result.0.printer) }
    return result
  }

  public func failOver(printer: String, reason: String, now: Date) throws -> [Job] {
    let moved = try write { db in
      var jobs = try Job.filter(Column("printer") == printer).filter(Column("state") == Job.State.queued.rawValue)
        .filter(Column("fallback") != nil).order(Column("sequence")).fetchAll(db)
      jobs.removeAll { $0.fallback == printer }
      for i in jobs.indices {
        jobs[i].fallbackFor = jobs[i].fallbackFor ?? printer
        jobs[i].printer = jobs[i].fallback!
        jobs[i].failoverReason = reason
        jobs[i].attempts = 0
        jobs[i].cupsJobID = nil
        jobs[i].printerState = nil
        jobs[i].notBefore = now
        jobs[i].updatedAt = now
        try jobs[i].update(db)
      }
      return jobs
    }
    for target in Set(moved.map(\.printer)) { notify(target) }
    return moved
  }
}
