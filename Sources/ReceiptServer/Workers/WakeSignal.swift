import Foundation
@_spi(Internals) import ReceiptModel

/// Wakes a sleeping task: ``wait(until:)`` suspends until ``signal()`` or the deadline, whichever
/// comes first. A signal while nobody waits is kept for the next wait, so none is lost (work that
/// arrives while a worker is busy is found when it looks again).
final class WakeSignal: Sendable {
  private struct State {
    var pending = false
    var waiter: CheckedContinuation<Void, Never>?
    var timer: Task<Void, Never>?
  }

  private let state = Locked(State())

  /// Wakes the waiter, or the next one.
  func signal() {
    let (waiter, timer) = state.withLock { state in
      defer { (state.waiter, state.timer) = (nil, nil) }
      if state.waiter == nil { state.pending = true }
      return (state.waiter, state.timer)
    }
    timer?.cancel()
    waiter?.resume()
  }

  /// Suspends until signaled or `deadline` (nil: no deadline); returns at once if a signal came
  /// since the last wait. Cancellation of the calling task ends the wait too.
  func wait(until deadline: Date?) async {
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let now = state.withLock { state -> Bool in
          if state.pending || Task.isCancelled {
            state.pending = false
            return true
          }
          state.waiter = continuation
          if let deadline {
            state.timer = Task { [weak self] in
              guard (try? await Task.sleep(for: .seconds(max(0, deadline.timeIntervalSinceNow)))) != nil else { return }
              self?.expire()
            }
          }
          return false
        }
        if now { continuation.resume() }
      }
    } onCancel: {
      expire()
    }
  }

  /// The deadline passed (or the wait was canceled): the waiter resumes without a signal.
  private func expire() {
    let waiter = state.withLock { state in
      defer { (state.waiter, state.timer) = (nil, nil) }
      return state.waiter
    }
    waiter?.resume()
  }

  /// Clears a kept signal (what is committed now is seen by the look that follows).
  func reset() {
    state.withLock { $0.pending = false }
  }
}
