import Foundation
@_spi(Internals) import ReceiptModel
import Synchronization

/// Waits for `body` at most `limit`: past it, throws ``StoreUnavailable`` (the API answers 503
/// with `Retry-After`) and runs `onTimeout` (closing the connection the work waited on, so it
/// fails too). `body` is told, through ``Deadline/check()``, when it is too late to start: work
/// that a caller has already been told failed must not happen later (a submission stored after
/// its 503). No thread waits: the caller is suspended. The caller's cancellation reaches the
/// work (it is canceled, and the caller answered at once with `CancellationError`).
///
/// The work and its timer are tasks of their own rather than a task group on purpose: a group
/// cannot return before its children end, and work stuck in a stalled database (a socket that
/// no cancellation reaches) would then hold its caller past the bound — the one thing this
/// function is for.
func bounded<T: Sendable>(
  _ limit: Duration, what: String, onTimeout: @escaping @Sendable () async -> Void = {},
  _ body: @escaping @Sendable (Deadline) async throws -> T
) async throws -> T {
  let race = Race<T>()
  return try await withTaskCancellationHandler {
    try await race.run(limit, what: what, onTimeout: onTimeout, body)
  } onCancel: {
    race.canceled.withLock { $0 = true }
    race.deadline.expire()
    if race.answer(.failure(CancellationError())) {
      race.work.withLock { $0?.cancel() }
      race.timer.withLock { $0?.cancel() }
    }
  }
}

extension Race {
  fileprivate func run(
    _ limit: Duration, what: String, onTimeout: @escaping @Sendable () async -> Void,
    _ body: @escaping @Sendable (Deadline) async throws -> T
  ) async throws -> T {
    let race = self
    return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
      race.continuation.withLock { $0 = continuation }
      // Canceled before it could start: nothing is started.
      if race.canceled.withLock({ $0 }) {
        _ = race.answer(.failure(CancellationError()))
        return
      }
      // The timer first, so finished work always finds it to cancel.
      race.timer.withLock {
        $0 = Task {
          guard (try? await Task.sleep(for: limit)) != nil else { return }
          race.deadline.expire()
          if race.answer(.failure(StoreUnavailable(reason: "\(what) did not answer within \(limit)"))) {
            await onTimeout()
            race.work.withLock { $0?.cancel() }
          }
        }
      }
      race.work.withLock {
        $0 = Task {
          let result: Result<T, any Error>
          do { result = .success(try await body(race.deadline)) } catch { result = .failure(error) }
          if race.answer(result) { race.timer.withLock { $0?.cancel() } }
        }
      }
    }
  }
}

/// Work against its timer: the first to finish answers.
private final class Race<T: Sendable>: Sendable {
  let continuation = Locked<CheckedContinuation<T, any Error>?>(nil)
  /// Set when the caller was canceled before the continuation existed.
  let canceled = Locked(false)
  let timer = Locked<Task<Void, Never>?>(nil)
  let work = Locked<Task<Void, Never>?>(nil)
  let deadline = Deadline()

  /// Resumes the caller unless it was resumed already; true when this was the answer.
  func answer(_ result: Result<T, any Error>) -> Bool {
    guard let continuation = continuation.withLock({ $0.take() }) else { return false }
    continuation.resume(with: result)
    return true
  }
}

/// When bounded work may no longer start (see ``bounded(_:what:onTimeout:_:)``).
final class Deadline: Sendable {
  private let expired = Atomic(false)

  func expire() { expired.store(true, ordering: .sequentiallyConsistent) }

  /// Throws once the caller has been answered (too late to start writing).
  func check() throws {
    if expired.load(ordering: .sequentiallyConsistent) { throw CancellationError() }
  }
}
