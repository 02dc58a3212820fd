internal import CHarfBuzz

/// An open font: a HarfBuzz face and font at unit scale (1 unit = 1 font design unit).
///
/// Layout is unhinted, so one `hb_font` per face serves every size exactly: positions are scaled
/// by `size / unitsPerEm` in Swift. The HarfBuzz objects are destroyed in `deinit`.
final class Font {
  let face: FontFace
  let hbFace: OpaquePointer
  let hbFont: OpaquePointer
  let unitsPerEm: Double
  let metrics: FontMetrics
  /// Whether the simple path's text shapes the same word by word, once known (see
  /// ``FontCollection/shapesWordsExactly(_:)``).
  var wordShapingVerdict: Bool?

  init(_ face: FontFace) throws {
    guard let blob = hb_blob_create_from_file_or_fail(face.path) else {
      throw LayoutError.fontUnreadable(path: face.path, reason: "file missing or unreadable")
    }
    defer { hb_blob_destroy(blob) }
    guard hb_face_count(blob) > UInt32(face.index) else {
      throw LayoutError.fontUnreadable(path: face.path, reason: "not a font file (or no face \(face.index))")
    }
    hbFace = hb_face_create(blob, UInt32(face.index))
    let upem = hb_face_get_upem(hbFace)
    let hbFont = hb_font_create(hbFace)!
    hb_font_set_scale(hbFont, Int32(upem), Int32(upem))
    self.hbFont = hbFont
    self.face = face
    unitsPerEm = Double(upem)

    var extents = hb_font_extents_t()
    hb_font_get_h_extents(hbFont, &extents)
    let em = Double(upem)
    func position(_ tag: hb_ot_metrics_tag_t, _ fallback: Double) -> Double {
      var value: hb_position_t = 0
      return hb_ot_metrics_get_position(hbFont, tag, &value) != 0 ? Double(value) / em : fallback
    }
    metrics = FontMetrics(
      ascent: Double(extents.ascender) / em,
      descent: -Double(extents.descender) / em,
      lineGap: Double(extents.line_gap) / em,
      underlineOffset: -position(HB_OT_METRICS_TAG_UNDERLINE_OFFSET, -0.1),
      underlineThickness: position(HB_OT_METRICS_TAG_UNDERLINE_SIZE, 0.05),
      strikeoutOffset: position(HB_OT_METRICS_TAG_STRIKEOUT_OFFSET, 0.3),
      strikeoutThickness: position(HB_OT_METRICS_TAG_STRIKEOUT_SIZE, 0.05)
    )
  }

  deinit {
    hb_font_destroy(hbFont)
    hb_face_destroy(hbFace)
  }

  /// Whether the font maps a scalar to a glyph.
  func covers(_ scalar: UInt32) -> Bool {
    var glyph: hb_codepoint_t = 0
    return hb_font_get_nominal_glyph(hbFont, scalar, &glyph) != 0
  }

  /// The advance of a scalar's nominal glyph in ems, or nil when the font lacks it.
  func advance(of scalar: UInt32) -> Double? {
    var glyph: hb_codepoint_t = 0
    guard hb_font_get_nominal_glyph(hbFont, scalar, &glyph) != 0 else { return nil }
    return Double(hb_font_get_glyph_h_advance(hbFont, glyph)) / unitsPerEm
  }
}
