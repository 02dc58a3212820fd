import Foundation
import Logging
import PostgresNIO
import Synchronization

/// `LISTEN`s for the store's notifications on a session of its own and passes them on from a
/// thread of its own (never the event loop): `receipt_work` (a printer may have work: its
/// worker wakes) and `receipt_jobs` (a job changed, as committed: the event feed tells its
/// listeners, in commit order — PostgreSQL delivers notifications in commit order).
///
/// A lost session is opened again after a second; then every printer with queued jobs is woken
/// and the event feed told it missed changes, as notifications sent meanwhile are gone.
final class PostgresListener: Sendable {
  private struct State {
    var workHandlers: [@Sendable (String) -> Void] = []
    var changeListeners: [any JobChangeListener] = []
    /// Notifications not yet handled, in arrival order.
    var pending: [(channel: String, payload: String)] = []
    var session: PostgresConnection?
    var stopped = false
    var reconnected = false
  }

  private let sessions: PostgresSessions
  private let logger: Logger
  private let state = Mutex(State())
  private let signal = NSCondition()

  init(sessions: PostgresSessions, logger: Logger) {
    self.sessions = sessions
    self.logger = logger
  }

  func addWorkHandler(_ handler: @escaping @Sendable (String) -> Void) {
    state.withLock { $0.workHandlers.append(handler) }
  }

  func addChangeListener(_ listener: any JobChangeListener) {
    state.withLock { $0.changeListeners.append(listener) }
  }

  /// Starts the listening thread (it holds the store weakly and ends with it).
  func start(store: PostgresJobStore) {
    let thread = Thread { [weak store, self] in self.loop(store: { store }) }
    thread.name = "receipt postgres listener"
    thread.start()
  }

  func stop() {
    let session = state.withLock { state in
      state.stopped = true
      return state.session
    }
    session?.hangUp()
    poke()
  }

  private func poke() {
    signal.lock()
    signal.broadcast()
    signal.unlock()
  }

  private func loop(store: () -> PostgresJobStore?) {
    var first = true
    while !state.withLock({ $0.stopped }) {
      let live = state.withLock { $0.session.map { !$0.isClosed } ?? false }
      if !live {
        if !first { Thread.sleep(forTimeInterval: 1) }
        guard connect() else { continue }
        if !first { state.withLock { $0.reconnected = true } }
        first = false
      }
      let (notes, reconnected) = state.withLock { state in
        defer {
          state.pending = []
          state.reconnected = false
        }
        return (state.pending, state.reconnected)
      }
      if notes.isEmpty && !reconnected {
        signal.lock()
        _ = signal.wait(until: Date().addingTimeInterval(1))
        signal.unlock()
        continue
      }
      guard let store = store() else { return }
      if reconnected { catchUp(store) }
      deliver(notes, store)
    }
  }

  /// Opens the session and listens on both channels; false when the database is not reachable.
  private func connect() -> Bool {
    do {
      let session = try sessions.connect()
      for channel in ["receipt_work", "receipt_jobs"] {
        session.addListener(channel: channel) { [weak self] _, note in
          guard let self else { return }
          state.withLock { $0.pending.append((note.channel, note.payload)) }
          poke()
        }
      }
      // A round trip makes sure the LISTENs are in place before work is looked for.
      try sessions.run("SELECT 1", on: session)
      state.withLock { $0.session = session }
      return true
    } catch {
      logger.warning("cannot listen for job notifications: \(error); trying again")
      return false
    }
  }

  private func catchUp(_ store: PostgresJobStore) {
    let printers = (try? store.query("SELECT DISTINCT printer FROM job WHERE state = 'queued'")) ?? []
    let handlers = state.withLock { $0.workHandlers }
    for row in printers {
      guard let printer = try? row.decode(String.self) else { continue }
      for handler in handlers { handler(printer) }
    }
    for listener in state.withLock({ $0.changeListeners }) { listener.changesMissed() }
  }

  private func deliver(_ notes: [(channel: String, payload: String)], _ store: PostgresJobStore) {
    let (handlers, listeners) = state.withLock { ($0.workHandlers, $0.changeListeners) }
    var printers: [String] = []
    // Each change as it was committed (the job from the notification), or its sequence where
    // the notification had no room for the job (read back now).
    var changes: [Change] = []
    for note in notes {
      if note.channel == "receipt_work" {
        if !printers.contains(note.payload) { printers.append(note.payload) }
        continue
      }
      let parts = note.payload.split(separator: " ", maxSplits: 1)
      guard let sequence = parts.first.flatMap({ Int64($0) }) else { continue }
      if parts.count == 2, let job = try? JSONDecoder().decode(NotifiedJob.self, from: Data(parts[1].utf8)).job {
        changes.append(.job(job))
      } else {
        changes.append(.sequence(sequence))
      }
    }
    for printer in printers { for handler in handlers { handler(printer) } }
    guard !changes.isEmpty, !listeners.isEmpty else { return }
    let wanting = listeners.filter(\.wantsChanges)
    for listener in listeners where !listener.wantsChanges { listener.changesMissed() }
    guard !wanting.isEmpty else { return }
    let missing = changes.compactMap { if case .sequence(let n) = $0 { n } else { nil } }
    var read: [Int64: Job] = [:]
    if !missing.isEmpty {
      guard
        let jobs = try? store.jobs(
          "SELECT \(unescaped: PostgresSchema.jobColumns) FROM job WHERE sequence = ANY(\(missing))")
      else {
        for listener in wanting { listener.changesMissed() }
        return
      }
      read = Dictionary(jobs.map { ($0.sequence, $0) }, uniquingKeysWith: { a, _ in a })
    }
    let jobs = changes.compactMap { change -> Job? in
      switch change {
      case .job(let job): job
      case .sequence(let sequence): read[sequence]
      }
    }
    for listener in wanting { listener.jobsChanged(jobs) }
  }

  private enum Change {
    case job(Job)
    case sequence(Int64)
  }
}
