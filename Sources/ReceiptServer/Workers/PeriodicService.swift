import Foundation
import ServiceLifecycle

/// Runs `body` at once and then every `interval` until graceful shutdown, which also ends the
/// wait (the archive sweeper, the printer watch): a Service of the daemon's ServiceGroup.
struct PeriodicService: Service, CustomStringConvertible {
  /// What it does, for the log ("the archive sweeper").
  let description: String
  let interval: Duration
  let body: @Sendable () async -> Void

  func run() async throws {
    while !Task.isShuttingDownGracefully, !Task.isCancelled {
      await body()
      try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
    }
  }
}
