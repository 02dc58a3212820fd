import Foundation
import GRDB

/// Group commit for submissions: callers wait (suspended, not blocking a thread) while one
/// committer thread writes everything that arrived since its last commit in one transaction —
/// one fsync for many jobs, each durable before its caller resumes. If a batch fails, its jobs
/// are written one by one so that one bad job fails alone.
// @unchecked: `pending` and `running` are read and written only under `lock`; the pool is
// Sendable.
final class GroupCommitter: @unchecked Sendable {
  typealias Outcome = (job: Job, created: Bool)
  private struct Pending {
    var request: JobRequest
    var key: String?
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

  /// Stores a job (or finds the one its key names); returns once it is committed.
  func submit(_ request: JobRequest, idempotencyKey: String?) async throws -> Outcome {
    try await withCheckedThrowingContinuation { continuation in
      lock.lock()
      pending.append(Pending(request: request, key: idempotencyKey, continuation: continuation))
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

  private func commit(_ batch: [Pending]) {
    let now = Date()
    do {
      let outcomes = try health.guarded(write: true) {
        try pool.write { db in
          try batch.map { try SQLiteJobStore.insert($0.request, idempotencyKey: $0.key, now: now, db) }
        }
      }
      for (item, outcome) in zip(batch, outcomes) { item.continuation.resume(returning: outcome) }
    } catch {
      for item in batch {
        item.continuation.resume(
          with: Result {
            try health.guarded(write: true) {
              try pool.write { db in try SQLiteJobStore.insert(item.request, idempotencyKey: item.key, now: now, db) }
            }
          })
      }
    }
  }
}
