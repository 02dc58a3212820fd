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

  /// How many were added so far.
  public var count: Int { lock.withLock { list.count } }
}

/// A flag set by one thread and read by others (a test's "stop now" to its client threads).
public final class Flag: @unchecked Sendable {  // `value` only behind `lock`
  private let lock = NSLock()
  private var value = false

  public init() {}

  /// Sets the flag (any thread).
  public func set() { lock.withLock { value = true } }

  /// Whether it was set.
  public var isSet: Bool { lock.withLock { value } }
}

/// The async form of ``waitUntil(seconds:poll:_:)``, for async tests (a daemon in the same
/// process, an async store): the test's task sleeps between looks, so no thread of the concurrency
/// pool is held — the daemon's tasks need them.
public func eventually(seconds: Double, poll: Double = 0.1, _ condition: () async throws -> Bool) async rethrows
  -> Bool
{
  let deadline = Date().addingTimeInterval(seconds)
  while Date() < deadline {
    if try await condition() { return true }
    try? await Task.sleep(for: .seconds(poll))
  }
  return try await condition()
}

extension Sequence {
  /// `map` with an async transform, one element after another.
  public func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
    var result: [T] = []
    for element in self { result.append(try await transform(element)) }
    return result
  }

  /// `filter` with an async predicate, one element after another.
  public func asyncFilter(_ isIncluded: (Element) async throws -> Bool) async rethrows -> [Element] {
    var result: [Element] = []
    for element in self where try await isIncluded(element) { result.append(element) }
    return result
  }
}

extension Sequence {
  /// `allSatisfy` with an async predicate.
  public func asyncAllSatisfy(_ predicate: (Element) async throws -> Bool) async rethrows -> Bool {
    for element in self where try await !predicate(element) { return false }
    return true
  }
}
