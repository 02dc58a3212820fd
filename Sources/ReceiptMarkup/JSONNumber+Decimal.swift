public import Foundation

/// Exact decimal arithmetic on order numbers, through Foundation's `Decimal` (38 significant
/// digits): `0.1 + 0.2` is `0.3`, and a 19-digit id times a 19-digit id is still exact.
extension JSONNumber {
  /// Most significant digits arithmetic keeps exactly.
  public static let maxArithmeticDigits = 38
  private static let posix = Locale(identifier: "en_US_POSIX")

  /// The value as a `Decimal`, or nil when it has more than 38 significant digits or a power
  /// of ten outside what `Decimal` holds.
  public var exactDecimal: Decimal? {
    // 39 digits when they fit Decimal's 128-bit significand (a quotient can have them).
    guard (-128...127).contains(exponent) else { return nil }
    // Up to 19 digits fit a UInt64 (most numbers: prices, quantities, ids): no text parsing.
    let significand: Decimal
    if digits.utf8.count <= 19, let whole = UInt64(digits) {
      significand = Decimal(whole)
    } else {
      guard digits.count <= Self.maxArithmeticDigits + 1,
        let parsed = Decimal(string: digits, locale: Self.posix),
        digits.count <= Self.maxArithmeticDigits || parsed.description == digits
      else { return nil }
      significand = parsed
    }
    return Decimal(sign: negative ? .minus : .plus, exponent: exponent, significand: significand)
  }

  /// The number a `Decimal` holds (its plain digits, e.g. `0.3`, `-12.5`, `1000`).
  public init?(_ decimal: Decimal) {
    guard decimal.isFinite else { return nil }
    self.init(literal: Self.plainText(decimal))
  }

  /// `Decimal`'s description is plain digits, but uses the POSIX form only; this guards it.
  private static func plainText(_ d: Decimal) -> String {
    let text = d.description
    return text.hasPrefix(".") ? "0" + text : text.hasPrefix("-.") ? "-0" + text.dropFirst() : text
  }
}

/// How a value is rounded to a number of fraction digits. Shops round money half up (away from
/// zero at exactly half: 0.125 → 0.13, −0.125 → −0.13); banks and IEEE round half to even.
public enum RoundingMode: String, CaseIterable, Sendable {
  /// Nearest; halves away from zero (Python's ROUND_HALF_UP). The default.
  case halfUp = "half-up"
  /// Nearest; halves to the even digit (ROUND_HALF_EVEN).
  case halfEven = "half-even"
  /// Away from zero (ROUND_UP).
  case up
  /// Towards zero, i.e. truncation (ROUND_DOWN).
  case down
  /// Towards +∞ (ROUND_CEILING).
  case ceiling
  /// Towards −∞ (ROUND_FLOOR).
  case floor

  /// The rule Foundation's format styles use.
  var rule: FloatingPointRoundingRule {
    switch self {
    case .halfUp: return .toNearestOrAwayFromZero
    case .halfEven: return .toNearestOrEven
    case .up: return .awayFromZero
    case .down: return .towardZero
    case .ceiling: return .up
    case .floor: return .down
    }
  }

  /// Rounds to `scale` fraction digits (negative scales round to tens, hundreds …).
  func round(_ value: Decimal, scale: Int) -> Decimal {
    var input = value
    var result = Decimal()
    let positive = value >= 0
    switch self {
    case .halfUp: NSDecimalRound(&result, &input, scale, .plain)
    case .halfEven: NSDecimalRound(&result, &input, scale, .bankers)
    case .ceiling: NSDecimalRound(&result, &input, scale, .up)
    case .floor: NSDecimalRound(&result, &input, scale, .down)
    case .up: NSDecimalRound(&result, &input, scale, positive ? .up : .down)
    case .down: NSDecimalRound(&result, &input, scale, positive ? .down : .up)
    }
    return result
  }
}

/// Foundation's `NSDecimalMultiply` and `NSDecimalAdd` round silently to 38 digits while
/// reporting no error (swift-foundation, 2026): every `+ - *` result is checked against the
/// exact schoolbook result of the operands' digits, so a rounded result is an error, never a
/// wrong receipt.
extension JSONNumber {
  /// The exact result of `a op b` for `+`, `-` or `*`.
  static func exact(_ op: Character, _ a: JSONNumber, _ b: JSONNumber) -> JSONNumber? {
    let x = Magnitude(a)
    var y = Magnitude(b)
    if op == "-" { y.negative.toggle() }
    if op == "*" {
      var product = [Int](repeating: 0, count: x.digits.count + y.digits.count + 1)
      for (i, dx) in x.digits.enumerated() where dx != 0 {
        for (j, dy) in y.digits.enumerated() { product[i + j] += dx * dy }
      }
      return Magnitude(negative: x.negative != y.negative, digits: carried(product), exponent: x.exponent + y.exponent)
        .number
    }
    let low = min(x.exponent, y.exponent)
    let xs = x.shifted(to: low)
    let ys = y.shifted(to: low)
    if xs.negative == ys.negative {
      var sum = [Int](repeating: 0, count: max(xs.digits.count, ys.digits.count) + 1)
      for (i, d) in xs.digits.enumerated() { sum[i] += d }
      for (i, d) in ys.digits.enumerated() { sum[i] += d }
      return Magnitude(negative: xs.negative, digits: carried(sum), exponent: low).number
    }
    let (big, small) = xs.isAtLeast(ys) ? (xs, ys) : (ys, xs)
    var difference = big.digits + [Int](repeating: 0, count: max(0, small.digits.count - big.digits.count))
    for (i, d) in small.digits.enumerated() { difference[i] -= d }
    for i in difference.indices where difference[i] < 0 {
      difference[i] += 10
      difference[i + 1] -= 1
    }
    return Magnitude(negative: big.negative, digits: difference, exponent: low).number
  }

  private static func carried(_ digits: [Int]) -> [Int] {
    var out = digits
    var carry = 0
    for i in out.indices {
      let v = out[i] + carry
      out[i] = v % 10
      carry = v / 10
    }
    while carry > 0 {
      out.append(carry % 10)
      carry /= 10
    }
    return out
  }

  /// Sign, decimal digits least significant first, power of ten.
  private struct Magnitude {
    var negative: Bool
    var digits: [Int]
    var exponent: Int

    init(negative: Bool, digits: [Int], exponent: Int) {
      (self.negative, self.digits, self.exponent) = (negative, digits, exponent)
    }

    init(_ n: JSONNumber) {
      negative = n.negative
      digits = n.digits.utf8.reversed().map { Int($0) - 48 }
      exponent = n.exponent
    }

    func shifted(to low: Int) -> Magnitude {
      Magnitude(negative: negative, digits: [Int](repeating: 0, count: exponent - low) + digits, exponent: low)
    }

    /// |self| ≥ |other| (same exponent).
    func isAtLeast(_ other: Magnitude) -> Bool {
      let a = Array(digits.reversed().drop { $0 == 0 })
      let b = Array(other.digits.reversed().drop { $0 == 0 })
      return a.count != b.count ? a.count > b.count : a.lexicographicallyPrecedes(b) == false
    }

    var number: JSONNumber? {
      let text = String(digits.reversed().map { Character(String($0)) }).drop { $0 == "0" }
      guard !text.isEmpty else { return JSONNumber(0) }
      return JSONNumber(literal: (negative ? "-" : "") + text + "e\(exponent)")
    }
  }
}
