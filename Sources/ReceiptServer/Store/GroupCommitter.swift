import Foundation
import GRDB
@_spi(Internals) import ReceiptModel

/// Group commit for the SQLite store's submissions (jobs, orders, reprints): callers wait,
/// suspended, while one drain task writes everything that arrived since its last commit in one
/// transaction through GRDB's async writer — one fsync for many submissions, each durable before
/// its caller resumes. If a batch fails, its submissions are written one by one so that one bad
/// submission fails alone. The drain task runs while work is pending and ends when there is none.
final class GroupCommitter: Sendable {
  private struct Pending {
    var submission: Submission
    var continuation: CheckedContinuation<Inserted, any Error>
  }

  private struct State {
    var pending: [Pending] = []
    var draining = false
  }

  private let pool: DatabasePool
  private let health: StoreHealth
  private let state = Locked(State())
  /// Largest batch per transaction (bounds the time a commit holds the writer).
  private let maxBatch = 256

  init(pool: DatabasePool, health: StoreHealth) {
    self.pool = pool
    self.health = health
  }

  /// Stores the submission (or finds what its key names); returns once it is committed.
  func submit(_ submission: Submission) async throws -> Inserted {
    try await withCheckedThrowingContinuation { continuation in
      let start = state.withLock { state in
        state.pending.append(Pending(submission: submission, continuation: continuation))
        defer { state.draining = true }
        return !state.draining
      }
      if start { Task { await self.drain() } }
    }
  }

  /// Commits batches until nothing is pending.
  private func drain() async {
    while true {
      let batch = state.withLock { state -> [Pending] in
        let batch = Array(state.pending.prefix(maxBatch))
        state.pending.removeFirst(batch.count)
        if batch.isEmpty { state.draining = false }
        return batch
      }
      guard !batch.isEmpty else { return }
      await commit(batch)
    }
  }

  private func commit(_ batch: [Pending]) async {
    let now = Date()
    let submissions = batch.map(\.submission)
    do {
      let outcomes = try await health.guarded(write: true) {
        try await pool.write { db in try submissions.map { try SQLiteJobStore.insert($0, now: now, db) } }
      }
      for (item, outcome) in zip(batch, outcomes) { item.continuation.resume(returning: outcome) }
    } catch {
      // One by one, each in its own transaction (savepoints would roll back together with a
      // failed commit): an order's tickets still commit with their order or not at all.
      for item in batch {
        let submission = item.submission
        do {
          let outcome = try await health.guarded(write: true) {
            try await pool.write { db in try SQLiteJobStore.insert(submission, now: now, db) }
          }
          item.continuation.resume(returning: outcome)
        } catch {
          item.continuation.resume(throwing: error)
        }
      }
    }
  }
}
