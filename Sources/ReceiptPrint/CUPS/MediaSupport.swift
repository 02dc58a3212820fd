import Foundation

/// What a printer's `media-supported` says about sizes, from PWG 5101.1 self-describing names
/// (`oe_roll80_80x200mm`, `custom_min_80x20mm`, `custom_max_80x3000mm`, `na_letter_8.5x11in`).
public struct MediaSupport: Sendable, Equatable {
  /// Widths of the listed sizes, in millimetres.
  public var widths: [Double]
  /// The longest custom length, if the printer takes custom sizes.
  public var maxLength: Double?
  /// The shortest custom length.
  public var minLength: Double?

  /// Reads the sizes out of media names; names without a size are skipped.
  public init(names: [String]) {
    var widths: [Double] = []
    for name in names {
      guard let size = Self.size(of: name) else { continue }
      if name.hasPrefix("custom_max_") {
        maxLength = max(maxLength ?? 0, size.length)
      } else if name.hasPrefix("custom_min_") {
        minLength = min(minLength ?? .infinity, size.length)
      }
      widths.append(size.width)
    }
    self.widths = Array(Set(widths)).sorted()
  }

  /// The size at the end of a self-describing name, in mm.
  static func size(of name: String) -> (width: Double, length: Double)? {
    guard let last = name.split(separator: "_").last else { return nil }
    let unit: Double
    var text = Substring(last)
    if text.hasSuffix("mm") {
      unit = 1
      text = text.dropLast(2)
    } else if text.hasSuffix("in") {
      unit = 25.4
      text = text.dropLast(2)
    } else {
      return nil
    }
    let parts = text.split(separator: "x")
    guard parts.count == 2, let w = Double(parts[0]), let l = Double(parts[1]) else { return nil }
    return (w * unit, l * unit)
  }

  /// Why a page of this width and length cannot print, or nil if it can (or nothing is known).
  public func problem(widthMillimetres width: Double, lengthMillimetres length: Double) -> String? {
    guard !widths.isEmpty else { return nil }
    guard widths.contains(where: { abs($0 - width) < 0.5 }) else {
      let list = widths.map { String(format: "%g mm", $0) }.joined(separator: ", ")
      return String(format: "the receipt is for %g mm paper but the printer takes %@", width, list)
        + "; use --paper to match the roll"
    }
    if let maxLength, length > maxLength + 0.01 {
      return String(format: "the receipt is %.1f mm long but the printer takes at most %g mm", length, maxLength)
    }
    return nil
  }
}
