import Foundation

/// Waits (at most `seconds`, looking every `poll` seconds) until `condition` holds; the
/// condition's last answer. For waits on other processes and threads (a daemon, a printer).
public func waitUntil(seconds: Double, poll: Double = 0.1, _ condition: () throws -> Bool) rethrows -> Bool {
  let deadline = Date().addingTimeInterval(seconds)
  while Date() < deadline {
    if try condition() { return true }
    Thread.sleep(forTimeInterval: poll)
  }
  return try condition()
}

/// Values collected from several threads (clients, workers), read once they are joined.
public final class Collected<Element>: @unchecked Sendable {  // `list` only behind `lock`
  private let lock = NSLock()
  private var list: [Element] = []

  public init() {}

  /// Adds a value (any thread).
  public func add(_ element: Element) { lock.withLock { list.append(element) } }

  /// Everything added so far, in the order it was added.
  public var all: [Element] { lock.withLock { list } }
}
