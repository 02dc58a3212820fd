import Foundation
import GRDB

/// Group commit for submissions (jobs and orders): callers wait (suspended, not blocking a
/// thread) while one committer thread writes everything that arrived since its last commit in one
/// transaction — one fsync for many submissions, each durable before its caller resumes. If a
/// batch fails, its submissions are written one by one so that one bad submission fails alone.
// @unchecked: `pending` and `running` are read and written only under `lock`; the pool is
// Sendable.
final class GroupCommitter: @unchecked Sendable {
  /// What is written.
  enum Work {
    case job(JobRequest, key: String?)
    case order(OrderRequest, key: String?)
  }

  /// What a write gave.
  enum Outcome {
    case job(Job, created: Bool)
    case order(Order, [Job], created: Bool)
  }

  private struct Pending {
    var work: Work
    var continuation: CheckedContinuation<Outcome, Error>
  }

  private let pool: DatabasePool
  private let health: StoreHealth
  private let lock = NSLock()
  private var pending: [Pending] = []
  /// A committer thread is running (it ends when nothing is pending).
  private var running = false
  /// Largest batch per transaction (bounds the time a commit holds the writer).
  private let maxBatch = 256

  init(pool: DatabasePool, health: StoreHealth) {
    self.pool = pool
    self.health = health
  }

  /// Stores the work (or finds what its key names); returns once it is committed.
  func submit(_ work: Work) async throws -> Outcome {
    try await withCheckedThrowingContinuation { continuation in
      lock.lock()
      pending.append(Pending(work: work, continuation: continuation))
      let start = !running
      running = true
      lock.unlock()
      if start {
        let thread = Thread { self.run() }
        thread.name = "receipt group commit"
        thread.start()
      }
    }
  }

  private func run() {
    while true {
      lock.lock()
      if pending.isEmpty {
        running = false
        lock.unlock()
        return
      }
      let batch = Array(pending.prefix(maxBatch))
      pending.removeFirst(batch.count)
      lock.unlock()
      commit(batch)
    }
  }

  private static func write(_ work: Work, now: Date, _ db: Database) throws -> Outcome {
    switch work {
    case .job(let request, let key):
      let (job, created) = try SQLiteJobStore.insert(request, idempotencyKey: key, now: now, db)
      return .job(job, created: created)
    case .order(let request, let key):
      let (order, jobs, created) = try SQLiteJobStore.insert(request, idempotencyKey: key, now: now, db)
      return .order(order, jobs, created: created)
    }
  }

  private func commit(_ batch: [Pending]) {
    let now = Date()
    do {
      let outcomes = try health.guarded(write: true) {
        try pool.write { db in try batch.map { try Self.write($0.work, now: now, db) } }
      }
      for (item, outcome) in zip(batch, outcomes) { item.continuation.resume(returning: outcome) }
    } catch {
      // One by one, each in its own transaction (savepoints would roll back together with a
      // failed commit): an order's tickets still commit with their order or not at all.
      for item in batch {
        item.continuation.resume(
          with: Result {
            try health.guarded(write: true) { try pool.write { db in try Self.write(item.work, now: now, db) } }
          })
      }
    }
  }
}
