internal import CHarfBuzz

/// One glyph out of HarfBuzz, scaled to points.
struct ShapedGlyph: Equatable {
  var id: UInt32
  /// UTF-16 offset of the glyph's cluster in the paragraph.
  var cluster: Int
  var advance: Double
  var xOffset: Double
  /// Upward offset in points (HarfBuzz's y axis).
  var yOffset: Double
  /// Breaking the line before this glyph's cluster needs reshaping.
  var unsafeToBreak: Bool
}

/// Shapes runs with HarfBuzz, reusing one `hb_buffer` (destroyed in `deinit`).
final class Shaper {
  private let buffer: OpaquePointer
  private var scripts: [Int32: hb_script_t] = [:]
  private var languages: [String: hb_language_t] = [:]
  private let noLigatures: [hb_feature_t]

  init() {
    buffer = hb_buffer_create()
    var features: [hb_feature_t] = []
    for name in ["liga=0", "clig=0"] {
      var feature = hb_feature_t()
      if hb_feature_from_string(name, -1, &feature) != 0 { features.append(feature) }
    }
    noLigatures = features
  }

  deinit { hb_buffer_destroy(buffer) }

  /// Shapes `range` of a paragraph (the rest is context) and returns glyphs in visual order.
  func shape(
    _ text: UnsafeBufferPointer<UInt16>, range: Range<Int>, font: Font, size: Double, horizontalScale: Double,
    verticalScale: Double, rightToLeft: Bool, script: Int32, language: String?, ligatures: Bool
  ) -> [ShapedGlyph] {
    hb_buffer_clear_contents(buffer)
    hb_buffer_add_utf16(buffer, text.baseAddress, Int32(text.count), UInt32(range.lowerBound), Int32(range.count))
    hb_buffer_set_direction(buffer, rightToLeft ? HB_DIRECTION_RTL : HB_DIRECTION_LTR)
    hb_buffer_set_script(buffer, hbScript(script))
    if let language, let hb = hbLanguage(language) { hb_buffer_set_language(buffer, hb) }
    hb_buffer_set_cluster_level(buffer, HB_BUFFER_CLUSTER_LEVEL_MONOTONE_GRAPHEMES)
    hb_buffer_guess_segment_properties(buffer)
    if ligatures {
      hb_shape(font.hbFont, buffer, nil, 0)
    } else {
      noLigatures.withUnsafeBufferPointer { hb_shape(font.hbFont, buffer, $0.baseAddress, UInt32($0.count)) }
    }
    var count: UInt32 = 0
    guard let infos = hb_buffer_get_glyph_infos(buffer, &count),
      let positions = hb_buffer_get_glyph_positions(buffer, &count), count > 0
    else { return [] }
    let sx = size / font.unitsPerEm * horizontalScale
    let sy = size / font.unitsPerEm * verticalScale
    var glyphs: [ShapedGlyph] = []
    glyphs.reserveCapacity(Int(count))
    for i in 0..<Int(count) {
      let info = infos[i]
      let position = positions[i]
      let flags = hb_glyph_info_get_glyph_flags(&infos[i])
      glyphs.append(
        ShapedGlyph(
          id: info.codepoint, cluster: Int(info.cluster), advance: Double(position.x_advance) * sx,
          xOffset: Double(position.x_offset) * sx, yOffset: Double(position.y_offset) * sy,
          unsafeToBreak: flags.rawValue & HB_GLYPH_FLAG_UNSAFE_TO_BREAK.rawValue != 0))
    }
    return glyphs
  }

  private func hbScript(_ code: Int32) -> hb_script_t {
    if let script = scripts[code] { return script }
    let script = UnicodeProperties.scriptName(code).map { hb_script_from_string($0, -1) } ?? HB_SCRIPT_INVALID
    scripts[code] = script
    return script
  }

  /// HarfBuzz's language for a BCP 47 tag (nil for an empty or invalid one).
  private func hbLanguage(_ tag: String) -> hb_language_t? {
    if let language = languages[tag] { return language }
    guard !tag.isEmpty, let language = hb_language_from_string(tag, -1) else { return nil }
    languages[tag] = language
    return language
  }
}
