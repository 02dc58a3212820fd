/// The one way a floating-point number becomes an integer in receipt.
///
/// `Int(someDouble)` traps when the value is NaN, infinite or outside `Int`'s range — and numbers
/// come from outside: an IPP client's `media` name (`custom_x_80x1e300mm`), a PDF's MediaBox
/// (`1e300` points), a template's attribute. A trap in the daemon stops every printer. These
/// conversions answer nil (or clamp, for values the code has already bounded) instead, and
/// `scripts/lint-numbers.py` (part of `make lint`) refuses `Int(…)`, `Int32(…)` and friends of a
/// floating-point expression anywhere in Sources, so the unchecked conversion cannot be written
/// by accident.
extension BinaryFloatingPoint {
  /// The value rounded by `rule`, when it is finite and the result lies in `range`; else nil.
  ///
  /// ```swift
  /// (length * 100).roundedInt(in: 1...400_000)  // nil for 1e300, NaN, -1, 0.004
  /// ```
  @inlinable
  public func roundedInt(
    _ rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero, in range: ClosedRange<Int>
  ) -> Int? {
    guard isFinite else { return nil }
    let rounded = self.rounded(rule)
    // Compared as floating point first: outside Int's range the conversion below would trap.
    guard rounded >= Self(range.lowerBound), rounded <= Self(range.upperBound) else { return nil }
    guard let value = Int(exactly: rounded), range.contains(value) else { return nil }
    return value
  }

  /// The value rounded by `rule` and clamped into `range` (NaN gives the lower bound): for values
  /// the code has bounded already, where a wrong but finite answer is better than a trap.
  @inlinable
  public func clampedInt(
    _ rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero, in range: ClosedRange<Int> = Int.min...Int.max
  ) -> Int {
    guard !isNaN else { return range.lowerBound }
    let rounded = self.rounded(rule)
    if rounded <= Self(range.lowerBound) { return range.lowerBound }
    if rounded >= Self(range.upperBound) { return range.upperBound }
    return Int(exactly: rounded).map { Swift.min(Swift.max($0, range.lowerBound), range.upperBound) }
      ?? range.upperBound
  }
}
