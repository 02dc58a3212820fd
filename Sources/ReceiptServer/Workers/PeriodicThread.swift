import Foundation

/// Runs `body` at once and then every `interval` seconds on a thread of its own until stopped
/// (the archive sweeper, the printer watch). `stop` wakes it: no waiting out the interval.
// @unchecked: `stopped` is read and written only under `condition`.
final class PeriodicThread: @unchecked Sendable {
  private let condition = NSCondition()
  private var stopped = false

  init(name: String, interval: TimeInterval, _ body: @escaping @Sendable () -> Void) {
    let thread = Thread { [self] in
      while true {
        body()
        condition.lock()
        if !stopped { _ = condition.wait(until: Date().addingTimeInterval(interval)) }
        let done = stopped
        condition.unlock()
        if done { return }
      }
    }
    thread.name = name
    thread.start()
  }

  func stop() {
    condition.lock()
    stopped = true
    condition.broadcast()
    condition.unlock()
  }
}
