import ReceiptModel
import Testing

/// The one conversion of a floating-point number to an integer (``BinaryFloatingPoint/roundedInt(_:in:)``):
/// what once trapped the daemon (`Int(1e300)`, `Int(Double.nan)`) is nil, and an in-range value
/// rounds as `Foundation` would.
@Suite struct CheckedNumberTests {
  @Test(arguments: [Double.nan, .infinity, -.infinity, 1e300, -1e300, 9.3e18, Double(Int.max), -9.3e18])
  func numbersNoIntegerHoldsAreNil(value: Double) {
    #expect(value.roundedInt(in: Int.min...Int.max) == nil)
    #expect(value.roundedInt(in: 0...1000) == nil)
  }

  @Test func inRangeValuesRoundByTheRule() {
    #expect((8000.4).roundedInt(in: 0...10_000) == 8000)
    #expect((8000.5).roundedInt(in: 0...10_000) == 8001)
    #expect((-2.5).roundedInt(in: -10...10) == -3)
    #expect((2.7).roundedInt(.down, in: 0...10) == 2)
    #expect((2.1).roundedInt(.up, in: 0...10) == 3)
    #expect((10.4).roundedInt(in: 0...10) == 10)
    #expect((10.6).roundedInt(in: 0...10) == nil, "rounds to 11: outside")
    #expect((-0.4).roundedInt(in: 0...10) == 0)
  }

  @Test func clampingNeverTraps() {
    #expect(Double.nan.clampedInt(in: 3...9) == 3)
    #expect(Double.infinity.clampedInt() == Int.max)
    #expect((-Double.infinity).clampedInt() == Int.min)
    #expect((1e300).clampedInt(in: 0...100) == 100)
    #expect((9.223372036854775807e18).clampedInt() == Int.max)
    #expect((41.5).clampedInt(.down, in: 0...100) == 41)
  }
}
