import Logging
@_spi(Internals) import ReceiptModel
import ServiceLifecycle

/// When the daemon's stop began (SIGTERM or SIGINT): each part logs its end against it, so a
/// stop that takes long says which part held it up — at `info` from ``slow`` into the stop on,
/// at `debug` before.
final class StopClock: Sendable {
  /// A part that ends later than this into the stop is logged at `info`.
  static let slow = 1000

  /// Logs that `part` ended, with how long into the stop (nothing while the daemon is not
  /// stopping): at `info` from ``slow`` on, at `debug` before.
  func logEnd(of part: String, to logger: Logger) {
    guard let milliseconds else { return }
    logger.log(level: milliseconds >= Self.slow ? .info : .debug, "\(part), \(milliseconds) ms into the stop")
  }

  private let began = Locked<ContinuousClock.Instant?>(nil)

  /// Marks the stop as begun now (only the first time counts).
  func begin() {
    began.withLock { $0 = $0 ?? .now }
  }

  /// Milliseconds since the stop began, or nil while the daemon is not stopping.
  var milliseconds: Int? {
    began.withLock { began in
      began.map { start in
        let elapsed = ContinuousClock.now - start
        return Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
      }
    }
  }
}

/// A part of the daemon whose end during a stop is logged with the time since the stop began
/// ("stopped the API listener, 12 ms into the stop"); the ServiceGroup's own messages name it
/// by `name` too.
struct LoggedService: Service, CustomStringConvertible {
  let name: String
  var description: String { name }
  let service: any Service
  let clock: StopClock
  let logger: Logger

  func run() async throws {
    defer { clock.logEnd(of: "stopped \(name)", to: logger) }
    try await service.run()
  }
}

/// The first part to hear of a stop (the last Service of the group): starts the stop's clock.
/// It also ends the event feed's streams: an open `GET /v1/events` then holds no listener's
/// shutdown up.
struct StopMarker: Service {
  let clock: StopClock
  let hub: EventHub
  let logger: Logger
  let grace: Double

  func run() async throws {
    try? await gracefulShutdown()
    clock.begin()
    let seconds = grace == grace.rounded() ? "\(Int(grace))" : "\(grace)"
    logger.info("stopping: the listeners first, then the printers' jobs in hand within \(seconds) s")
    hub.close()
  }
}
