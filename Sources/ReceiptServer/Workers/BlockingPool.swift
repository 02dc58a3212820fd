import NIOPosix
@_spi(Internals) import ReceiptModel

/// Blocking work (cairo, libcups, libjpeg, device and socket I/O) on threads of its own — a
/// swift-nio `NIOThreadPool` — never on Swift's concurrency pool: that pool has one thread per
/// core (two here), and one long render on it stalls every request, health checks included.
/// Each printer's worker has a pool of one thread (libcups keeps its server setting per thread);
/// previews and printer probes share one with a bounded queue: when it is full, `run` throws
/// ``Full`` at once (the API answers 429) instead of piling up work.
final class BlockingPool: Sendable {
  /// The queue is full.
  struct Full: Error {}

  private let pool: NIOThreadPool
  private let threads: Int
  /// Most jobs waiting beyond one per thread (nil: no bound).
  let capacity: Int?
  private let inFlight = Locked(0)

  /// Starts `threads` threads.
  init(threads: Int, capacity: Int? = nil) {
    self.threads = max(1, threads)
    self.capacity = capacity
    pool = NIOThreadPool(numberOfThreads: self.threads)
    pool.start()
  }

  /// Runs `body` on one of the pool's threads and returns its result.
  func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    let admitted = inFlight.withLock { count in
      if let capacity, count >= threads + capacity { return false }
      count += 1
      return true
    }
    guard admitted else { throw Full() }
    defer { inFlight.withLock { $0 -= 1 } }
    return try await pool.runIfActive(body)
  }

  /// Work running and waiting.
  var load: Int { inFlight.withLock { $0 } }

  /// Ends the threads once the queued work is done.
  func shutdown() async {
    try? await pool.shutdownGracefully()
  }

  /// A pool no one can reach any more ends its threads (a server that was released without
  /// running, as tests do); after ``shutdown()`` this does nothing.
  deinit {
    pool.shutdownGracefully { _ in }
  }
}
