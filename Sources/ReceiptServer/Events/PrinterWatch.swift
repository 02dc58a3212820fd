import Foundation

/// Feeds printer changes to the event hub: while anyone listens, it asks every printer for its
/// state every ``interval`` and publishes a `printer` event when the state or the reasons
/// change; every ``heartbeat`` it sends the listeners a keep-alive. Printers are never polled
/// for nobody.
enum PrinterWatch {
  static let interval: TimeInterval = 2
  static let heartbeat: TimeInterval = 15

  /// Starts watching; `look` answers the printers' current state (blocking: CUPS, sockets).
  static func start(hub: EventHub, look: @escaping @Sendable () -> [PrinterResponse]) -> PeriodicThread {
    let state = Watched()
    return PeriodicThread(name: "receipt printer watch", interval: interval) {
      guard hub.subscriberCount > 0 else {
        // Nobody saw the last states: the next listener gets them fresh.
        state.last = [:]
        return
      }
      for printer in look() {
        let previous = state.last[printer.name]
        state.last[printer.name] = printer
        if previous?.state != printer.state || previous?.reasons != printer.reasons {
          hub.publish(type: "printer", data: encodedJSON(printer))
        }
      }
      if Date().timeIntervalSince(state.lastBeat) >= heartbeat {
        hub.heartbeat()
        state.lastBeat = Date()
      }
    }
  }

  /// What the watch saw last; touched only on its thread.
  private final class Watched: @unchecked Sendable {
    var last: [String: PrinterResponse] = [:]
    var lastBeat = Date()
  }
}
