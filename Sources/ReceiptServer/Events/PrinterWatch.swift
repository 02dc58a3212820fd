import Foundation
import ServiceLifecycle

/// Feeds printer changes to the event hub, as a Service of the daemon: while anyone listens, it
/// asks every printer for its state every ``interval`` and publishes a `printer` event when the
/// state or the reasons change; every ``heartbeat`` it sends the listeners a keep-alive. Printers
/// are never polled for nobody.
struct PrinterWatch: Service, CustomStringConvertible {
  var description: String { "the printer watch" }
  static let interval: Duration = .seconds(2)
  static let heartbeat: TimeInterval = 15

  let hub: EventHub
  /// The printers' current state (their probes run on the daemon's blocking pool).
  let look: @Sendable () async -> [PrinterResponse]

  func run() async throws {
    var last: [String: PrinterResponse] = [:]
    var lastBeat = Date()
    while !Task.isShuttingDownGracefully, !Task.isCancelled {
      if hub.subscriberCount > 0 {
        for printer in await look() {
          let previous = last[printer.name]
          last[printer.name] = printer
          if previous?.state != printer.state || previous?.reasons != printer.reasons {
            hub.publish(type: "printer", data: encodedJSON(printer))
          }
        }
        if Date().timeIntervalSince(lastBeat) >= Self.heartbeat {
          hub.heartbeat()
          lastBeat = Date()
        }
      } else {
        // Nobody saw the last states: the next listener gets them fresh.
        last = [:]
      }
      try? await cancelWhenGracefulShutdown { try await Task.sleep(for: Self.interval) }
    }
  }
}
