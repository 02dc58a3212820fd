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
    var bytes = Array(literal.utf8)[...]
    var negative = false
    if bytes.first == UInt8(ascii: "-") {
      negative = true
      bytes = bytes.dropFirst()
    }
    var integer: ArraySlice<UInt8> = []
    var fraction: ArraySlice<UInt8> = []
    var exponent = 0
    let intEnd = bytes.firstIndex { !Self.isDigit($0) } ?? bytes.endIndex
    integer = bytes[bytes.startIndex..<intEnd]
    guard !integer.isEmpty, integer.count == 1 || integer.first != UInt8(ascii: "0") else { return nil }
    var rest = bytes[intEnd...]
    if rest.first == UInt8(ascii: ".") {
      rest = rest.dropFirst()
      let end = rest.firstIndex { !Self.isDigit($0) } ?? rest.endIndex
      fraction = rest[rest.startIndex..<end]
      guard !fraction.isEmpty else { return nil }
      rest = rest[end...]
    }
    if let e = rest.first, e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
      rest = rest.dropFirst()
      var sign = 1
      if let s = rest.first, s == UInt8(ascii: "+") || s == UInt8(ascii: "-") {
        sign = s == UInt8(ascii: "-") ? -1 : 1
        rest = rest.dropFirst()
      }
      let end = rest.firstIndex { !Self.isDigit($0) } ?? rest.endIndex
      let exponentDigits = rest[rest.startIndex..<end]
      guard !exponentDigits.isEmpty, exponentDigits.count <= 6 else { return nil }
      exponent = sign * Int(String(decoding: exponentDigits, as: UTF8.self))!
      rest = rest[end...]
    }
    guard rest.isEmpty, abs(exponent) <= 100_000 else { return nil }
    var all = Array(integer) + Array(fraction)
    exponent -= fraction.count
    let leading = all.firstIndex { $0 != UInt8(ascii: "0") } ?? all.endIndex
    all.removeFirst(leading)
    while let last = all.last, last == UInt8(ascii: "0") {
      all.removeLast()
      exponent += 1
    }
    self.literal = literal
    if all.isEmpty {
      (self.negative, self.digits, self.exponent) = (false, "0", 0)
    } else {
      (self.negative, self.digits, self.exponent) = (negative, String(decoding: all, as: UTF8.self), exponent)
    }
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
