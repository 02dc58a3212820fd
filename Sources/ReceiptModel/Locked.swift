public import Foundation

/// A value reached only under a pthread mutex (`NSLock`), with `Mutex`'s `withLock` shape.
///
/// Used where ThreadSanitizer must see the lock: `Synchronization.Mutex` waits in a futex inside
/// the (uninstrumented) standard library, so under contention ThreadSanitizer misses the
/// hand-over and reports races between two critical sections of the same mutex (a ten-line
/// program with four threads and one `Mutex` shows it: `scripts/tsan-mutex-repro.swift`).
/// pthread mutexes are intercepted, so `make sanitize` stays precise. No module uses `Mutex`.
/// SPI (`@_spi(Internals)`): public to the compiler, so other modules of the engine inline its
/// `withLock` (see ``KeptTable``), and not part of the API users of ReceiptKit see.
@_spi(Internals) public final class Locked<Value>: @unchecked Sendable {
  // @unchecked: `value` is read and written only inside `withLock`, under `lock`.
  @usableFromInline let lock = NSLock()
  @usableFromInline var value: Value

  /// A lock guarding `value`.
  public init(_ value: Value) {
    self.value = value
  }

  /// Runs `body` with the value, under the lock.
  @inlinable
  public func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }
}
