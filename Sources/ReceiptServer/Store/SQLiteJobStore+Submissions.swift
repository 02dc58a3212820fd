import Foundation
import GRDB

/// Submissions in the SQLite store: jobs, orders with their tickets, reprints — each in an open
/// write transaction of the group committer, or found by its idempotency key.
extension SQLiteJobStore {
  /// Stores a submission in an open write transaction.
  static func insert(_ submission: Submission, now: Date, _ db: Database) throws -> Inserted {
    switch submission {
    case .job(let request, let key):
      let (job, created) = try insert(request, idempotencyKey: key, now: now, db)
      return .job(job, created: created)
    case .order(let request, let key):
      if let key, let existing = try Order.filter(Order.CodingKeys.idempotencyKey.column == key).fetchOne(db) {
        return .order(existing, try tickets(of: existing.id, db), created: false)
      }
      let order = Order(
        id: UUID().uuidString.lowercased(), idempotencyKey: key, data: request.data, locale: request.locale,
        routes: request.routes, createdAt: now)
      try order.insert(db)
      let jobs = try request.tickets.map { try insert($0, idempotencyKey: nil, orderID: order.id, now: now, db).0 }
      return .order(order, jobs, created: true)
    case .reprint(let original, let key):
      if let key, let existing = try Job.filter(JobColumn.idempotencyKey.column == key).fetchOne(db) {
        return .job(existing, created: false)
      }
      let earlier = try Job.filter(JobColumn.reprintOf.column == original.id).fetchCount(db)
      let (job, created) = try insert(
        .reprint(of: original, earlierReprints: earlier), idempotencyKey: key, now: now, db)
      return .job(job, created: created)
    }
  }

  /// Stores a job, or finds the one its key names.
  static func insert(
    _ request: JobRequest, idempotencyKey: String?, orderID: String? = nil, now: Date, _ db: Database
  ) throws -> (Job, Bool) {
    if let key = idempotencyKey, let existing = try Job.filter(JobColumn.idempotencyKey.column == key).fetchOne(db) {
      return (existing, false)
    }
    // The next number of the AUTOINCREMENT sequence: never reused, also after deletions.
    let last = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'job'") ?? 0
    let job = Job(
      request, id: UUID().uuidString.lowercased(), sequence: last + 1, idempotencyKey: idempotencyKey,
      orderID: orderID, now: now)
    try job.insert(db)
    return (job, true)
  }

  static func tickets(of orderID: String, _ db: Database) throws -> [Job] {
    try Job.filter(JobColumn.orderID.column == orderID).order(JobColumn.sequence.column).fetchAll(db)
  }

  func order(_ id: String) async throws -> (order: Order, jobs: [Job])? {
    try await read { db in
      guard let order = try Order.filter(Order.CodingKeys.id.column == id).fetchOne(db) else { return nil }
      return (order, try Self.tickets(of: id, db))
    }
  }
}
