import Foundation
import Synchronization

/// Runs blocking work (cairo, libcups, libjpeg) on its own threads, never on Swift's
/// concurrency pool: that pool has one thread per core (two here), and one long render on it
/// stalls every request, health checks included. The queue is bounded: when it is full, `run`
/// throws ``Full`` at once (the API answers 429) instead of piling up work.
final class BlockingExecutor: Sendable {
  /// The queue is full.
  struct Full: Error {}

  private struct State {
    var queue: [@Sendable () -> Void] = []
    var running = 0
    var stopped = false
  }

  private let state = Mutex(State())
  private let wake = DispatchSemaphore(value: 0)
  /// Most jobs waiting (running ones not counted).
  let capacity: Int

  /// Starts `threads` threads named `name`.
  init(name: String, threads: Int, capacity: Int) {
    self.capacity = capacity
    for i in 0..<max(1, threads) {
      let thread = Thread { [self] in loop() }
      thread.name = "\(name) \(i + 1)"
      thread.start()
    }
  }

  private func loop() {
    while true {
      wake.wait()
      let work: (@Sendable () -> Void)? = state.withLock { state in
        guard !state.queue.isEmpty else { return nil }
        state.running += 1
        return state.queue.removeFirst()
      }
      guard let work else { return }  // woken without work: stopped
      work()
      state.withLock { $0.running -= 1 }
    }
  }

  /// Runs `body` on one of the executor's threads and returns its result.
  func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
      do {
        try enqueue { continuation.resume(with: Result { try body() }) }
      } catch {
        continuation.resume(throwing: error)
      }
    }
  }

  /// Queues `work` for the executor's threads without waiting for it; throws ``Full`` when the
  /// queue is full (or the executor stopped).
  func enqueue(_ work: @escaping @Sendable () -> Void) throws {
    let accepted = state.withLock { state -> Bool in
      guard !state.stopped, state.queue.count < capacity else { return false }
      state.queue.append(work)
      return true
    }
    guard accepted else { throw Full() }
    wake.signal()
  }

  /// Work running and work waiting.
  var load: (running: Int, queued: Int) { state.withLock { ($0.running, $0.queue.count) } }

  /// Ends the threads once the queued work is done.
  func shutdown(threads: Int) {
    state.withLock { $0.stopped = true }
    for _ in 0..<threads { wake.signal() }
  }
}
