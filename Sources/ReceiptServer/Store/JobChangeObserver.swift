import GRDB
@_spi(Internals) import ReceiptModel

/// Who wants the jobs every commit changed (the event feed).
protocol JobChangeListener: Sendable {
  /// Whether the changes are wanted now; when not, the store does not read them back (a daemon
  /// nobody watches pays nothing) and calls ``changesMissed()`` instead.
  var wantsChanges: Bool { get }
  /// The jobs a commit created or changed, as committed, in commit order.
  func jobsChanged(_ jobs: [Job])
  /// A commit changed jobs while the changes were not wanted.
  func changesMissed()
}

/// Sees every committed change to the `job` table on the store's one writer connection and
/// hands the changed jobs, as committed, to the listeners — in commit order, because SQLite
/// commits one transaction at a time. Group commits, orders and single updates all pass here,
/// so the event feed cannot miss a change that a code path forgot to announce.
final class JobChangeObserver: TransactionObserver, Sendable {
  /// Row ids changed in the open transaction; touched only on the writer's queue.
  private let pending = Locked<[Int64]>([])
  private let listeners = Locked<[any JobChangeListener]>([])

  func add(_ listener: any JobChangeListener) {
    listeners.withLock { $0.append(listener) }
  }

  func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
    switch eventKind {
    case .insert(let table), .update(let table, _): table == Job.databaseTableName
    case .delete: false
    }
  }

  func databaseDidChange(with event: DatabaseEvent) {
    pending.withLock { $0.append(event.rowID) }
  }

  func databaseDidCommit(_ db: Database) {
    let rows = pending.withLock { rows in
      defer { rows = [] }
      return rows
    }
    let all = listeners.withLock { $0 }
    guard !rows.isEmpty, !all.isEmpty else { return }
    let wanting = all.filter(\.wantsChanges)
    if wanting.count < all.count { for listener in all where !listener.wantsChanges { listener.changesMissed() } }
    guard !wanting.isEmpty else { return }
    var seen = Set<Int64>()
    let unique = rows.filter { seen.insert($0).inserted }
    // `sequence` is the rowid; read on the writer right after the commit, so this is the state
    // the commit left.
    guard let jobs = try? Job.filter(keys: unique).fetchAll(db) else { return }
    let order = Dictionary(uniqueKeysWithValues: unique.enumerated().map { ($1, $0) })
    let sorted = jobs.sorted { (order[$0.sequence] ?? 0) < (order[$1.sequence] ?? 0) }
    for listener in wanting { listener.jobsChanged(sorted) }
  }

  func databaseDidRollback(_ db: Database) {
    pending.withLock { $0 = [] }
  }
}
