@_spi(Internals) import ReceiptModel

/// Opens once, with the outcome of a one-time preparation (the store's schema migration): callers
/// before it wait, suspended; callers after it get the outcome at once.
final class ReadyGate: Sendable {
  private enum State {
    case waiting([CheckedContinuation<Void, any Error>])
    case open(Result<Void, any Error>)
  }

  private let state = Locked(State.waiting([]))

  /// Opens the gate with `outcome` (later calls do nothing).
  func open(_ outcome: Result<Void, any Error>) {
    let waiting = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
      guard case .waiting(let waiting) = state else { return [] }
      state = .open(outcome)
      return waiting
    }
    for continuation in waiting { continuation.resume(with: outcome) }
  }

  /// The outcome once the gate is open; nil while it is not.
  var outcome: Result<Void, any Error>? {
    state.withLock { state in
      if case .open(let outcome) = state { outcome } else { nil }
    }
  }

  /// Returns when the gate opens (throwing the preparation's error).
  func wait() async throws {
    if let outcome { return try outcome.get() }
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
      let outcome = state.withLock { state -> Result<Void, any Error>? in
        switch state {
        case .open(let outcome): return outcome
        case .waiting(let waiting):
          state = .waiting(waiting + [continuation])
          return nil
        }
      }
      if let outcome { continuation.resume(with: outcome) }
    }
  }
}
