/// A JSON number kept exactly as written: the literal text, and its value as a decimal
/// (sign, significant digits, power of ten), so that `820982911946154508` prints and compares
/// digit for digit and `1.50` equals `1.5`. Binary floating point is only used where a
/// formatter needs it (`double`).
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible {
  /// The number as written in the JSON text (e.g. `4.80`, `-1e3`).
  public let literal: String
  /// Value = (negative ? -1 : 1) × digits × 10^exponent; digits without leading or trailing
  /// zeros ("0" for zero, which is never negative).
  let negative: Bool
  let digits: String
  let exponent: Int

  /// Parses a JSON number literal (RFC 8259 grammar); nil if it is not one or its exponent is
  /// beyond ±100,000 (no order needs more, and it keeps every operation bounded).
  public init?(literal: String) {
    var text = literal
    guard let value = text.withUTF8({ Self.value(of: $0) }) else { return nil }
    self.literal = literal
    (negative, digits, exponent) = value
  }

  /// Parses the literal in `bytes` (the JSON parser's input, read in place).
  init?(utf8 bytes: UnsafeBufferPointer<UInt8>) {
    guard let value = Self.value(of: bytes) else { return nil }
    literal = String(decoding: bytes, as: UTF8.self)
    (negative, digits, exponent) = value
  }

  /// Sign, significant digits and power of ten of a literal, read byte by byte.
  private static func value(of b: UnsafeBufferPointer<UInt8>) -> (Bool, String, Int)? {
    let n = b.count
    var i = 0
    var negative = false
    if i < n, b[i] == UInt8(ascii: "-") {
      negative = true
      i += 1
    }
    let integer = i
    while i < n, isDigit(b[i]) { i += 1 }
    let integerEnd = i
    guard integerEnd > integer, integerEnd - integer == 1 || b[integer] != UInt8(ascii: "0") else { return nil }
    var (fraction, fractionEnd) = (i, i)
    if i < n, b[i] == UInt8(ascii: ".") {
      i += 1
      fraction = i
      while i < n, isDigit(b[i]) { i += 1 }
      fractionEnd = i
      guard fractionEnd > fraction else { return nil }
    }
    var exponent = 0
    if i < n, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
      i += 1
      var sign = 1
      if i < n, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
        sign = b[i] == UInt8(ascii: "-") ? -1 : 1
        i += 1
      }
      let start = i
      while i < n, isDigit(b[i]) { i += 1 }
      guard i > start, i - start <= 6 else { return nil }
      for k in start..<i { exponent = exponent * 10 + Int(b[k] - UInt8(ascii: "0")) }
      exponent *= sign
    }
    guard i == n, abs(exponent) <= 100_000 else { return nil }
    exponent -= fractionEnd - fraction
    // The integer and fraction digits as one run, without leading and trailing zeros.
    var all: [UInt8] = []
    all.reserveCapacity(integerEnd - integer + fractionEnd - fraction)
    all.append(contentsOf: UnsafeBufferPointer(rebasing: b[integer..<integerEnd]))
    all.append(contentsOf: UnsafeBufferPointer(rebasing: b[fraction..<fractionEnd]))
    let leading = all.firstIndex { $0 != UInt8(ascii: "0") } ?? all.endIndex
    var end = all.endIndex
    while end > leading, all[end - 1] == UInt8(ascii: "0") {
      end -= 1
      exponent += 1
    }
    if leading == end { return (false, "0", 0) }
    return (negative, String(decoding: all[leading..<end], as: UTF8.self), exponent)
  }

  /// An integer.
  public init(_ value: Int) {
    self.init(literal: String(value))!
  }

  private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

  /// Equal by value: `1.50 == 1.5`, `1e2 == 100`, `-0 == 0`.
  public static func == (a: JSONNumber, b: JSONNumber) -> Bool {
    a.negative == b.negative && a.digits == b.digits && a.exponent == b.exponent
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(negative)
    hasher.combine(digits)
    hasher.combine(exponent)
  }

  /// The nearest binary floating-point value (what formatters that need one use).
  public var double: Double { Double(literal) ?? (negative ? -.infinity : .infinity) }

  /// Whether the value is a whole number.
  public var isInteger: Bool { digits == "0" || exponent >= 0 }

  /// The value as plain decimal digits without an exponent (`1e3` → `1000`, `1.50` → `1.5`),
  /// or nil when that would be longer than `limit` characters.
  public func plainDecimal(limit: Int = 400) -> String? {
    if digits == "0" { return "0" }
    let sign = negative ? "-" : ""
    if exponent >= 0 {
      guard digits.count + exponent <= limit else { return nil }
      return sign + digits + String(repeating: "0", count: exponent)
    }
    let fractionDigits = -exponent
    guard max(digits.count, fractionDigits) + 2 <= limit else { return nil }
    if digits.count > fractionDigits {
      let split = digits.index(digits.startIndex, offsetBy: digits.count - fractionDigits)
      return sign + digits[..<split] + "." + digits[split...]
    }
    return sign + "0." + String(repeating: "0", count: fractionDigits - digits.count) + digits
  }

  /// The literal, as written.
  public var description: String { literal }
}
