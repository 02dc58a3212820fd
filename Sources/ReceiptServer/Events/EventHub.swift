import Foundation
@_spi(Internals) import ReceiptModel

/// The daemon's change feed (`GET /v1/events`): job and printer changes in the order they
/// happened, fanned out to every subscriber. The last ``capacity`` events are kept, so a client
/// that reconnects with `Last-Event-ID` misses nothing; one that was away longer (or connects to
/// a daemon that restarted) gets a `reset` event and reloads its state instead of silently
/// missing changes.
final class EventHub: Sendable {
  /// One event: an id unique across restarts (`<boot>-<n>`), a type, and its JSON.
  struct Event: Sendable, Equatable {
    var number: Int64
    var type: String
    var data: String
  }

  /// What a new subscriber gets: the events it missed (nil when they are gone: reload), then
  /// every event from now on.
  struct Subscription: Sendable {
    var id: Int
    var missed: [Event]?
    var events: AsyncStream<Event>
  }

  /// Events kept for reconnecting clients.
  static let capacity = 4096
  /// Events a slow subscriber may have waiting before it is dropped (it reconnects and resumes).
  static let subscriberBuffer = 4096

  private struct State {
    var next: Int64 = 1
    var ring: [Event] = []
    var subscribers: [Int: AsyncStream<Event>.Continuation] = [:]
    var nextSubscriber = 0
    var closed = false
  }

  private let state = Locked(State())
  /// Distinguishes this process's event ids from an earlier run's.
  let boot: String
  /// Most subscribers at once: a new one beyond it ends the oldest subscription (its client
  /// reconnects with `Last-Event-ID` and misses nothing), so streams cannot pile up and hold the
  /// daemon's connections (2,048 once locked the API out).
  let maxSubscribers: Int

  init(
    boot: String = String(
      UInt64(clamping: (Date().timeIntervalSince1970 * 1000).clampedInt(.down, in: 0...Int.max)), radix: 36),
    maxSubscribers: Int = 64
  ) {
    self.boot = boot
    self.maxSubscribers = max(1, maxSubscribers)
  }

  /// The SSE id of an event.
  func id(of event: Event) -> String { "\(boot)-\(event.number)" }

  /// Publishes an event to every subscriber, in call order (callers serialise: the store's
  /// commits, the printer watch).
  func publish(type: String, data: String) {
    state.withLock { state in
      let event = Event(number: state.next, type: type, data: data)
      state.next += 1
      state.ring.append(event)
      if state.ring.count > Self.capacity { state.ring.removeFirst(state.ring.count - Self.capacity) }
      for (id, continuation) in state.subscribers {
        if case .dropped = continuation.yield(event) {
          continuation.finish()
          state.subscribers[id] = nil
        }
      }
    }
  }

  /// Changes happened that no event reports (nobody listened, so they were not read): a client
  /// that resumes from before them is told to reload instead of being replayed a gap.
  func breakContinuity() {
    state.withLock { state in
      state.ring.removeAll()
      state.next += 1
    }
  }

  /// Sends a keep-alive comment to every subscriber (event number 0, never stored): proxies
  /// and clients see a live connection, and a client that vanished is noticed at the write.
  func heartbeat() {
    state.withLock { state in
      for continuation in state.subscribers.values { continuation.yield(Event(number: 0, type: "", data: "")) }
    }
  }

  /// Subscribes; `lastEventID` is the `Last-Event-ID` a reconnecting client sent.
  func subscribe(lastEventID: String?) -> Subscription {
    let (stream, continuation) = AsyncStream.makeStream(
      of: Event.self, bufferingPolicy: .bufferingOldest(Self.subscriberBuffer))
    let (subscription, evicted) = state.withLock { state in
      let id = state.nextSubscriber
      state.nextSubscriber += 1
      var evicted: [AsyncStream<Event>.Continuation] = []
      if state.closed {
        continuation.finish()
      } else {
        while state.subscribers.count >= maxSubscribers, let oldest = state.subscribers.keys.min() {
          evicted.append(state.subscribers.removeValue(forKey: oldest)!)
        }
        state.subscribers[id] = continuation
      }
      var missed: [Event]? = []
      if let lastEventID {
        missed = nil
        let parts = lastEventID.split(separator: "-")
        if parts.count == 2, parts[0] == boot, let last = Int64(parts[1]), last < state.next {
          let oldest = state.ring.first?.number ?? state.next
          if last + 1 >= oldest { missed = state.ring.filter { $0.number > last } }
        }
      }
      return (Subscription(id: id, missed: missed, events: stream), evicted)
    }
    evicted.forEach { $0.finish() }
    return subscription
  }

  /// Ends a subscription (the client went away).
  func unsubscribe(_ id: Int) {
    let continuation = state.withLock { $0.subscribers.removeValue(forKey: id) }
    continuation?.finish()
  }

  /// How many clients are listening.
  var subscriberCount: Int { state.withLock { $0.subscribers.count } }

  /// Takes subscriptions again after ``close()`` (a daemon started again in the same process).
  func reopen() {
    state.withLock { $0.closed = false }
  }

  /// Ends every subscription (the daemon is shutting down), and any made later.
  func close() {
    let all = state.withLock { state in
      state.closed = true
      defer { state.subscribers = [:] }
      return Array(state.subscribers.values)
    }
    all.forEach { $0.finish() }
  }
}

/// Job changes as `job` events while anyone listens; otherwise they are not even read back, and
/// the feed's continuity is broken (a client resuming across the gap reloads).
struct JobEventFeed: JobChangeListener {
  let hub: EventHub

  var wantsChanges: Bool { hub.subscriberCount > 0 }

  func jobsChanged(_ jobs: [Job]) {
    for job in jobs { hub.publish(type: "job", data: encodedJSON(JobResponse(job))) }
  }

  func changesMissed() { hub.breakContinuity() }
}
