import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The loopback ports this test process may use, each handed out once.
///
/// Test processes run side by side (`scripts/run-tests.sh` starts four), and each starts servers
/// on ports it picked: printer simulators listen at once, but cupsd, ippeveprinter, PostgreSQL
/// and the daemons under test are given a port that something else binds a moment later. Picked
/// from the kernel's ephemeral range (bind to 0, close) the same port could go to two processes
/// in that moment — seen: a printer simulator that got cupsd's traffic, refused it and went
/// offline. So every process owns a slice of 20000–31999 (below the ephemeral range, 32768–60999,
/// where outgoing connections and `bind` to 0 take theirs): slice `RECEIPT_TEST_PORT_SLICE` of
/// `RECEIPT_TEST_PORT_SLICES` (the script sets both; a lone process owns the whole range), and
/// within it a counter that never gives a port twice. A port some other program holds is skipped.
public enum TestPorts {
  /// All the ports test processes share out.
  static let range: ClosedRange<Int> = 20_000...31_999

  /// This process's slice of ``range``.
  static let slice: ClosedRange<Int> = {
    let environment = ProcessInfo.processInfo.environment
    guard let count = environment["RECEIPT_TEST_PORT_SLICES"].flatMap(Int.init), count > 1,
      let index = environment["RECEIPT_TEST_PORT_SLICE"].flatMap(Int.init), (0..<count).contains(index)
    else { return range }
    let width = range.count / count
    let start = range.lowerBound + index * width
    return start...(start + width - 1)
  }()

  private static let lock = NSLock()
  /// The next port's offset in ``slice``: starts anywhere, so runs one after the other do not
  /// meet the last run's connections still in TIME_WAIT.
  nonisolated(unsafe) private static var next = Int.random(in: 0..<slice.count)
  nonisolated(unsafe) private static var given = 0

  /// Ports of this process's slice in turn, each only once; throws when the slice is used up.
  static func take<T>(_ use: (UInt16) -> T?) throws -> T {
    while true {
      let port: UInt16? = lock.withLock {
        guard given < slice.count else { return nil }
        defer { (next, given) = ((next + 1) % slice.count, given + 1) }
        return UInt16(slice.lowerBound + next)
      }
      guard let port else { throw RigError("every loopback port in \(slice) was handed out") }
      if let result = use(port) { return result }
    }
  }

  /// A port of this process's slice that nothing listens on or is bound to, for a server that
  /// binds it next.
  public static func free() throws -> UInt16 {
    try take { port in isFree(port) ? port : nil }
  }

  /// Whether 127.0.0.1:`port` can be bound now (without SO_REUSEADDR: a port with connections
  /// in TIME_WAIT counts as taken).
  private static func isFree(_ port: UInt16) -> Bool {
    guard let (fd, _) = try? Loopback.listenOn(port, receiveBuffer: nil, reuse: false) else { return false }
    close(fd)
    return true
  }
}
