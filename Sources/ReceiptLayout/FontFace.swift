/// A font file and face index at a size: what a renderer needs to draw a ``GlyphRun``.
///
/// Renderers open their own FreeType face from ``path`` (never the layout engine's), so no
/// C object is shared between layout and rendering.
public struct FontFace: Hashable, Sendable, CustomStringConvertible {
  /// The font file.
  public var path: String
  /// The face index inside a collection (`.ttc`).
  public var index: Int
  /// The family name reported by the font.
  public var family: String
  /// Whether the font has color glyphs (emoji).
  public var isColor: Bool
  /// Whether bold was asked for and the face has no bold weight: renderers embolden its outlines
  /// (as Pango and browsers do), so a bold CJK total looks bold.
  public var synthesizeBold: Bool
  /// Whether italic was asked for and the face is upright: renderers slant it.
  public var synthesizeOblique: Bool

  /// Creates a font face reference.
  public init(
    path: String, index: Int = 0, family: String = "", isColor: Bool = false, synthesizeBold: Bool = false,
    synthesizeOblique: Bool = false
  ) {
    self.path = path
    self.index = index
    self.family = family
    self.isColor = isColor
    self.synthesizeBold = synthesizeBold
    self.synthesizeOblique = synthesizeOblique
  }

  public var description: String {
    let synthesized = (synthesizeBold ? " synthetic bold" : "") + (synthesizeOblique ? " synthetic oblique" : "")
    return "\(family)\(synthesized) (\(path)#\(index))"
  }
}

/// Vertical metrics of a font as fractions of the em (multiply by the size in points).
struct FontMetrics: Hashable, Sendable {
  /// Above the baseline, positive.
  var ascent: Double
  /// Below the baseline, positive.
  var descent: Double
  /// Line gap (leading).
  var lineGap: Double
  /// Underline position below the baseline (positive = down) and thickness.
  var underlineOffset: Double
  var underlineThickness: Double
  /// Strikeout position above the baseline (positive = up) and thickness.
  var strikeoutOffset: Double
  var strikeoutThickness: Double

  /// The line height under Apple's `.usesFontLeading` rule.
  var lineHeight: Double { ascent + descent + lineGap }
}
