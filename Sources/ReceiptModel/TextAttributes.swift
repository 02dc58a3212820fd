import Foundation

/// A font request: a list of families tried in order (then system fallback), a size and a style.
public struct FontDescriptor: Hashable, Sendable, CustomStringConvertible {
  /// Family names in order of preference, e.g. `["DejaVu Sans"]`; generic names (`sans-serif`,
  /// `monospace`) are resolved by fontconfig.
  public var families: [String]
  /// Size in points (the em size).
  public var size: Double
  /// Weight on the CSS scale 100…900 (400 regular, 700 bold).
  public var weight: Int
  /// Italic or oblique.
  public var italic: Bool

  /// Creates a font descriptor.
  public init(families: [String] = ["DejaVu Sans"], size: Double = 10, weight: Int = 400, italic: Bool = false) {
    self.families = families
    self.size = size
    self.weight = weight
    self.italic = italic
  }

  /// The receipt default: DejaVu Sans 10 pt.
  public static let receiptDefault = FontDescriptor()

  /// This font in bold (weight 700).
  public var bold: FontDescriptor { with { $0.weight = 700 } }

  /// A copy with changes applied.
  public func with(_ change: (inout FontDescriptor) -> Void) -> FontDescriptor {
    var copy = self
    change(&copy)
    return copy
  }

  public var description: String {
    "\(families.joined(separator: ", ")) \(size)pt w\(weight)\(italic ? " italic" : "")"
  }
}

/// The character attributes of a run of text.
public struct TextAttributes: Hashable, Sendable {
  public var font: FontDescriptor
  public var underline: Bool
  public var strikethrough: Bool
  /// White text on a black band (the receipt "reverse" mode).
  public var inverse: Bool
  /// Horizontal scale (2 = the printer's double width).
  public var horizontalScale: Double
  /// Vertical scale (2 = the printer's double height); scales the line height too.
  public var verticalScale: Double
  /// Extra space after every grapheme, in points.
  public var letterSpacing: Double
  /// BCP 47 language (e.g. `ja`, `ar`), used for shaping, line breaking and font fallback.
  public var language: String?

  /// Creates attributes; every parameter has the plain default.
  public init(
    font: FontDescriptor = .receiptDefault, underline: Bool = false, strikethrough: Bool = false,
    inverse: Bool = false, horizontalScale: Double = 1, verticalScale: Double = 1,
    letterSpacing: Double = 0, language: String? = nil
  ) {
    self.font = font
    self.underline = underline
    self.strikethrough = strikethrough
    self.inverse = inverse
    self.horizontalScale = horizontalScale
    self.verticalScale = verticalScale
    self.letterSpacing = letterSpacing
    self.language = language
  }

  /// A copy with changes applied.
  public func with(_ change: (inout TextAttributes) -> Void) -> TextAttributes {
    var copy = self
    change(&copy)
    return copy
  }
}

extension FontDescriptor {
  /// Parses `"DejaVu Sans 10"`, `"DejaVu Sans, WenQuanYi Micro Hei bold italic 12"` or a font
  /// file path (`/usr/share/fonts/…/X.ttf 9`): comma-separated families, optional `bold`/`italic`
  /// words, and a trailing size in points. Missing parts keep the receipt defaults.
  public init?(parsing text: String) {
    // A template names a handful of fonts, on element after element of every receipt.
    if let known = Self.parsed.withLock({ $0[text] }) {
      guard let known else { return nil }
      self = known
      return
    }
    let made = Self.parse(text)
    Self.parsed.withLock { parsed in
      if parsed.count >= 256 { parsed.removeAll() }
      parsed[text] = made
    }
    guard let made else { return nil }
    self = made
  }

  /// Descriptors parsed so far, by their text (at most 256; when full it starts again empty).
  private static let parsed = Locked<[String: FontDescriptor?]>([:])

  private static func parse(_ text: String) -> FontDescriptor? {
    var descriptor = FontDescriptor.receiptDefault
    var words = text.split(separator: " ").map(String.init)
    if let last = words.last, let size = Double(last.replacingOccurrences(of: "pt", with: "")) {
      guard size > 0, size <= 500 else { return nil }
      descriptor.size = size
      words.removeLast()
    }
    while let last = words.last?.lowercased(), ["bold", "italic", "oblique", "regular"].contains(last) {
      if last == "bold" { descriptor.weight = 700 }
      if last == "italic" || last == "oblique" { descriptor.italic = true }
      words.removeLast()
    }
    let families = words.joined(separator: " ").split(separator: ",").map {
      $0.trimmingCharacters(in: .whitespaces)
    }.filter { !$0.isEmpty }
    if !families.isEmpty { descriptor.families = families }
    return descriptor
  }
}
