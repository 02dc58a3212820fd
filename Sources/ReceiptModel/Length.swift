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
    let s = Self.trimmed(text).lowercased()
    let units: [(String, (Double) -> Length)] = [
      ("dots", { .dots($0, at: resolution) }), ("dot", { .dots($0, at: resolution) }),
      ("mm", { .mm($0) }), ("pt", { .pt($0) }), ("in", { .inches($0) }),
    ]
    for (suffix, make) in units where s.hasSuffix(suffix) {
      guard let value = Double(Self.trimmed(String(s.dropLast(suffix.count)))),
        value.isFinite
      else { return nil }
      self = make(value)
      return
    }
    guard let value = Double(s), value.isFinite else { return nil }
    self = .pt(value)
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
