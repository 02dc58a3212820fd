import Foundation

/// A physical length. Stored in PostScript points (1/72 inch), the unit of PDF and of the layout.
public struct Length: Hashable, Sendable, Comparable, CustomStringConvertible {
  /// The length in points (1/72 inch).
  public var points: Double

  /// Creates a length from points.
  public init(points: Double) { self.points = points }

  /// A length in points (1/72 inch).
  public static func pt(_ value: Double) -> Length { Length(points: value) }
  /// A length in millimetres.
  public static func mm(_ value: Double) -> Length { Length(points: value * 72 / 25.4) }
  /// A length in inches.
  public static func inches(_ value: Double) -> Length { Length(points: value * 72) }
  /// A length in printer dots at a resolution.
  public static func dots(_ value: Double, at resolution: Resolution) -> Length {
    Length(points: value * 72 / Double(resolution.dpi))
  }
  /// Zero.
  public static let zero = Length(points: 0)

  /// The length in millimetres.
  public var millimetres: Double { points * 25.4 / 72 }
  /// The length in inches.
  public var inches: Double { points / 72 }
  /// The length in (fractional) dots at a resolution.
  public func dots(at resolution: Resolution) -> Double { points * Double(resolution.dpi) / 72 }

  public static func < (a: Length, b: Length) -> Bool { a.points < b.points }
  public static func + (a: Length, b: Length) -> Length { Length(points: a.points + b.points) }
  public static func - (a: Length, b: Length) -> Length { Length(points: a.points - b.points) }
  public static func * (a: Length, k: Double) -> Length { Length(points: a.points * k) }

  public var description: String { "\(points)pt" }

  /// Parses `12`, `12pt`, `80mm`, `0.125in` or `24dots`/`24dot` (dots need a resolution).
  ///
  /// A bare number is points. Returns `nil` for anything else.
  public init?(parsing text: String, resolution: Resolution = .dpi203) {
    // Template attributes are ASCII: read from their bytes (the characters' way made an array
    // of closures, a lowercased copy and a string per suffix: 2,000 instructions a length, for
    // every row of every receipt). Anything else by characters, where "mm" followed by a
    // combining mark is not "mm".
    if let ascii = Self.parsedASCII(text, resolution: resolution) {
      guard let length = ascii else { return nil }
      self = length
      return
    }
    guard let length = Self.parsedByCharacters(text, resolution: resolution) else { return nil }
    self = length
  }

  /// A unit a length may end with.
  private struct Unit: Sendable {
    let suffix: String
    let bytes: [UInt8]
    let make: @Sendable (Double, Resolution) -> Length
    init(_ suffix: String, _ make: @escaping @Sendable (Double, Resolution) -> Length) {
      self.suffix = suffix
      bytes = Array(suffix.utf8)
      self.make = make
    }
  }

  /// The units, longest first where one ends another.
  private static let units: [Unit] = [
    Unit("dots") { v, r in .dots(v, at: r) }, Unit("dot") { v, r in .dots(v, at: r) }, Unit("mm") { v, _ in .mm(v) },
    Unit("pt") { v, _ in .pt(v) }, Unit("in") { v, _ in .inches(v) },
  ]

  /// Parses by characters (any text): lowercased, a unit suffix, then the number before it.
  package static func parsedByCharacters(_ text: String, resolution: Resolution) -> Length? {
    let s = Self.trimmed(text).lowercased()
    for unit in units where s.hasSuffix(unit.suffix) {
      guard let value = Double(Self.trimmed(String(s.dropLast(unit.suffix.count)))), value.isFinite else {
        return nil
      }
      return unit.make(value, resolution)
    }
    guard let value = Double(s), value.isFinite else { return nil }
    return .pt(value)
  }

  /// Parses ASCII text from its bytes, with the answer ``parsedByCharacters(_:resolution:)``
  /// gives (a test compares them): nil when the text is not ASCII (or not contiguous), else the
  /// length or nil for no length.
  package static func parsedASCII(_ text: String, resolution: Resolution) -> Length?? {
    let found = text.utf8.withContiguousStorageIfAvailable { bytes -> Length?? in
      guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
      func isBlank(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 }
      func lower(_ b: UInt8) -> UInt8 { b >= 0x41 && b <= 0x5A ? b | 0x20 : b }
      var start = 0
      var end = bytes.count
      while start < end, isBlank(bytes[start]) { start += 1 }
      while end > start, isBlank(bytes[end - 1]) { end -= 1 }
      var make: @Sendable (Double, Resolution) -> Length = { v, _ in .pt(v) }
      for unit in units where end - start >= unit.bytes.count {
        let from = end - unit.bytes.count
        var matches = true
        for i in 0..<unit.bytes.count where lower(bytes[from + i]) != unit.bytes[i] { matches = false }
        guard matches else { continue }
        make = unit.make
        end = from
        while end > start, isBlank(bytes[end - 1]) { end -= 1 }
        break
      }
      // The number as the characters' way reads it: lowercased ("1E3", "INF").
      let digits = UnsafeBufferPointer(rebasing: bytes[start..<end])
      let number =
        digits.contains(where: { $0 >= 0x41 && $0 <= 0x5A })
        ? String(decoding: digits.map(lower), as: UTF8.self) : String(decoding: digits, as: UTF8.self)
      guard let value = Double(number), value.isFinite else { return .some(nil) }
      return .some(make(value, resolution))
    }
    return found ?? nil
  }

  /// `text` without leading and trailing `.whitespaces`; Foundation is asked only when an end
  /// is not a plain ASCII character (template attributes are parsed for every element of every
  /// receipt, and bridging to `NSString` cost more than the parse).
  package static func trimmed(_ text: String) -> String {
    if let first = text.utf8.first, let last = text.utf8.last, first < 0x80, last < 0x80,
      first != 0x20, first != 0x09, last != 0x20, last != 0x09
    {
      return text
    }
    return text.trimmingCharacters(in: .whitespaces)
  }
}

/// A printer resolution in dots per inch (the same horizontally and vertically).
public struct Resolution: Hashable, Sendable, CustomStringConvertible {
  /// Dots per inch.
  public var dpi: Int
  /// Creates a resolution; `dpi` must be positive.
  public init(dpi: Int) {
    precondition(dpi > 0, "resolution must be positive")
    self.dpi = dpi
  }
  /// 180 dpi (older Epson heads).
  public static let dpi180 = Resolution(dpi: 180)
  /// 203 dpi (8 dots/mm), the common thermal head.
  public static let dpi203 = Resolution(dpi: 203)
  /// 300 dpi.
  public static let dpi300 = Resolution(dpi: 300)
  public var description: String { "\(dpi)dpi" }
}
