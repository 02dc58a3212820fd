import Foundation

/// A seeded random number generator (SplitMix64) for tests: the same seed gives the same
/// sequence on every machine, so a failure can be replayed. The seed is
/// `RECEIPT_TEST_SEED` when set, else the test's fixed default; tests print it in every failure
/// message (`generator.seedNote`).
public struct SeededGenerator: RandomNumberGenerator, Sendable {
  public let seed: UInt64
  private var state: UInt64

  /// A generator from `RECEIPT_TEST_SEED`, or `defaultSeed`.
  public init(defaultSeed: UInt64) {
    let seed = ProcessInfo.processInfo.environment["RECEIPT_TEST_SEED"].flatMap { UInt64($0) } ?? defaultSeed
    self.seed = seed
    state = seed
  }

  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// "seed N (replay with RECEIPT_TEST_SEED=N)".
  public var seedNote: String { "seed \(seed) (replay with RECEIPT_TEST_SEED=\(seed))" }
}
