import Foundation
import Logging
import PostgresNIO
@_spi(Internals) import ReceiptModel

/// `LISTEN`s for the store's notifications on a connection of its own, in a child task of the
/// store's background work:
/// `receipt_work` (a printer may have work: its worker wakes) and `receipt_jobs` (a job changed,
/// as committed: the event feed tells its listeners, in commit order — PostgreSQL delivers
/// notifications in commit order, and they are handled one after another).
///
/// A lost connection is opened again after a second; then every printer with queued jobs is woken
/// and the event feed told it missed changes, as notifications sent meanwhile are gone.
final class PostgresListener: Sendable {
  private let url: PostgresURL
  private let logger: Logger
  private let changeListeners = Locked<[any JobChangeListener]>([])
  private let connection = Locked<PostgresConnection?>(nil)
  /// Open once the first connection listens on both channels.
  let listening = ReadyGate()

  init(url: PostgresURL, logger: Logger) {
    self.url = url
    self.logger = logger
  }

  func addChangeListener(_ listener: any JobChangeListener) {
    changeListeners.withLock { $0.append(listener) }
  }

  /// Listens until canceled or the store goes (a child task of the store's background work),
  /// connecting again a second after a lost connection.
  func run(store reference: WeakStore) async {
    var first = true
    while !Task.isCancelled, reference.store != nil {
      do {
        try await listen(to: reference, catchingUp: !first)
      } catch {
        if !Task.isCancelled {
          logger.warning("cannot listen for job notifications: \(StatementError.describe(error)); trying again")
        }
      }
      first = false
      guard (try? await Task.sleep(for: .seconds(1))) != nil else { return }
    }
  }

  /// Closes the listening connection (the store is closing).
  func close() async {
    if let open = connection.withLock({ $0.take() }) { try? await open.close() }
  }

  /// One connection's life: `LISTEN` on both channels (then, after a reconnection, catch up), then
  /// hand notifications on until it ends. The store is held weakly: the listening ends with it.
  private func listen(to store: WeakStore, catchingUp: Bool) async throws {
    let session = try await PostgresConnection.connect(
      configuration: url.configuration, id: Int.random(in: 1...1 << 30), logger: logger)
    connection.withLock { $0 = session }
    do {
      try await listenOn(session, to: store, catchingUp: catchingUp)
    } catch {
      connection.withLock { $0 = nil }
      try? await session.close()
      throw error
    }
    connection.withLock { $0 = nil }
    try? await session.close()
  }

  private func listenOn(_ session: PostgresConnection, to store: WeakStore, catchingUp: Bool) async throws {
    try await session.listen(on: "receipt_work") { work in
      try await session.listen(on: "receipt_jobs") { jobs in
        self.listening.open(.success(()))
        if catchingUp, let store = store.store { await self.catchUp(store) }
        try await withThrowingTaskGroup(of: Void.self) { group in
          group.addTask {
            for try await note in work { store.store?.announce(note.payload) }
          }
          group.addTask {
            for try await note in jobs {
              guard let store = store.store else { return }
              await self.deliver(note.payload, store)
            }
          }
          try await group.next()
          group.cancelAll()
        }
      }
    }
  }

  /// After a reconnection: wakes the printers with queued jobs and tells the event feed that
  /// changes were missed.
  private func catchUp(_ store: PostgresJobStore) async {
    let printers = (try? await store.rows("SELECT DISTINCT printer FROM job WHERE state = 'queued'")) ?? []
    for row in printers {
      if let printer = try? row.decode(String.self) { store.announce(printer) }
    }
    for listener in changeListeners.withLock({ $0 }) { listener.changesMissed() }
  }

  /// One job change: the job as the notification carries it, or (when it had no room) read back.
  private func deliver(_ payload: String, _ store: PostgresJobStore) async {
    let listeners = changeListeners.withLock { $0 }
    guard !listeners.isEmpty else { return }
    let wanting = listeners.filter(\.wantsChanges)
    for listener in listeners where !listener.wantsChanges { listener.changesMissed() }
    guard !wanting.isEmpty else { return }
    let parts = payload.split(separator: " ", maxSplits: 1)
    guard let sequence = parts.first.flatMap({ Int64($0) }) else { return }
    var job = parts.count == 2 ? try? Job.fromNotification(Data(parts[1].utf8)) : nil
    if job == nil {
      job = try? await store.jobs(
        "SELECT \(unescaped: PostgresSchema.jobColumns) FROM job WHERE sequence = \(sequence)"
      ).first
    }
    guard let job else {
      for listener in wanting { listener.changesMissed() }
      return
    }
    for listener in wanting { listener.jobsChanged([job]) }
  }
}

/// The store, held weakly: the listening ends when the store goes.
final class WeakStore: Sendable {
  private let reference: Locked<Weak>
  private struct Weak { weak var store: PostgresJobStore? }

  init(_ store: PostgresJobStore) { reference = Locked(Weak(store: store)) }

  var store: PostgresJobStore? { reference.withLock { $0.store } }
}
