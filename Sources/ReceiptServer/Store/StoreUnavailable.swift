import Foundation
import GRDB
@_spi(Internals) import ReceiptModel

/// The job store cannot read or write (disk full, I/O error, database locked by a stuck
/// process). Nothing was changed; the same request can be sent again. The API answers 503
/// with `Retry-After`, and `/readyz` is false until a write succeeds again.
struct StoreUnavailable: Error, CustomStringConvertible, Sendable {
  /// The store's reason: SQLite's ("database or disk is full") or PostgreSQL's (the server did
  /// not answer within the bound, the connection was refused).
  var reason: String
  var description: String { "the job store is unavailable: \(reason)" }
}

/// Whether the store's last write worked; a failed write makes the daemon not ready until a
/// probe write succeeds.
final class StoreHealth: Sendable {
  private let state = Locked<String?>(nil)

  /// Nil when healthy, else why not.
  var problem: String? { state.withLock { $0 } }

  /// Runs a store operation, turning SQLite errors into ``StoreUnavailable`` and recording the
  /// outcome of writes.
  func guarded<T>(write: Bool, _ body: () throws -> T) throws -> T {
    do {
      let result = try body()
      if write { state.withLock { $0 = nil } }
      return result
    } catch let error as DatabaseError {
      let reason = error.message ?? "\(error.resultCode)"
      state.withLock { $0 = reason }
      throw StoreUnavailable(reason: reason)
    }
  }

  /// The async form of ``guarded(write:_:)``.
  func guarded<T>(write: Bool, _ body: () async throws -> T) async throws -> T {
    do {
      let result = try await body()
      if write { state.withLock { $0 = nil } }
      return result
    } catch let error as DatabaseError {
      let reason = error.message ?? "\(error.resultCode)"
      state.withLock { $0 = reason }
      throw StoreUnavailable(reason: reason)
    }
  }
}
