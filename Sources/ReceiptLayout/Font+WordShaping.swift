internal import CHarfBuzz

extension Font {
  /// Whether text of the simple layout path (left to right, ``TextLayouter/simpleRanges``) shapes the same
  /// word by word as in one piece, so that shaped words may be reused (``WordShapeCache``).
  ///
  /// Shaping two pieces apart differs from shaping them together only where an OpenType lookup
  /// matches across their joint. Words are cut where a run of spaces starts or ends, so such a
  /// lookup involves the space glyph and a glyph of the text beside it. The check, as browsers
  /// make it (Blink's "space in ligatures or kerning"), collects every GSUB and GPOS lookup whose
  /// glyphs (before, input, after or output) include the space glyph, and refuses the font when any
  /// other glyph of those lookups can arise from text of the simple path: the font's glyphs for
  /// its characters and everything GSUB can substitute for them (HarfBuzz's closure). DejaVu Sans,
  /// whose only such lookup joins a space with an Arabic haraka, passes. Fonts HarfBuzz shapes
  /// with tables it cannot inspect this way (AAT `morx`/`kerx`, a `kern` table without GPOS) are
  /// refused, as is a font without a space glyph.
  ///
  /// `scalars` is the text the check allows for (tests widen it to show a refusal).
  static func wordShapingIsExact(
    face: OpaquePointer, font: OpaquePointer,
    scalars: [ClosedRange<UInt32>] = TextLayouter.simpleRanges.map { UInt32($0.lowerBound)...UInt32($0.upperBound) }
  ) -> Bool {
    if hb_aat_layout_has_substitution(face) != 0 || hb_aat_layout_has_positioning(face) != 0 { return false }
    if hb_ot_layout_has_positioning(face) == 0, hasTable(face, "kern") { return false }
    var space: hb_codepoint_t = 0
    guard hb_font_get_nominal_glyph(font, 0x20, &space) != 0 else { return false }

    let involved = HBSet()
    for table in [tag("GSUB"), tag("GPOS")] {
      let count = hb_ot_layout_table_get_lookup_count(face, table)
      for lookup in 0..<count {
        let sets = (HBSet(), HBSet(), HBSet(), HBSet())
        hb_ot_layout_lookup_collect_glyphs(face, table, lookup, sets.0.set, sets.1.set, sets.2.set, sets.3.set)
        guard [sets.0, sets.1, sets.2, sets.3].contains(where: { $0.contains(space) }) else { continue }
        for set in [sets.0, sets.1, sets.2, sets.3] { involved.formUnion(set) }
      }
    }
    involved.remove(space)
    if involved.isEmpty { return true }

    // Every glyph the text can become under GSUB.
    let reachable = HBSet()
    var glyph: hb_codepoint_t = 0
    for range in scalars {
      for scalar in range where hb_font_get_nominal_glyph(font, scalar, &glyph) != 0 { reachable.insert(glyph) }
    }
    let lookups = HBSet()
    let count = hb_ot_layout_table_get_lookup_count(face, tag("GSUB"))
    if count > 0 { hb_set_add_range(lookups.set, 0, count - 1) }
    hb_ot_layout_lookups_substitute_closure(face, lookups.set, reachable.set)
    return !reachable.intersects(involved)
  }

  /// HarfBuzz's version and the check's (a recorded verdict holds for these only; the check's
  /// changes with ``TextLayouter/simpleRanges``).
  static let harfBuzzVersion = String(cString: hb_version_string()) + "/words-2"

  private static func tag(_ name: String) -> hb_tag_t { hb_tag_from_string(name, -1) }

  private static func hasTable(_ face: OpaquePointer, _ name: String) -> Bool {
    guard let blob = hb_face_reference_table(face, tag(name)) else { return false }
    defer { hb_blob_destroy(blob) }
    return hb_blob_get_length(blob) > 0
  }
}

/// An owned `hb_set_t` (destroyed in `deinit`).
final class HBSet {
  let set: OpaquePointer

  init() { set = hb_set_create() }
  deinit { hb_set_destroy(set) }

  var isEmpty: Bool { hb_set_is_empty(set) != 0 }
  func contains(_ glyph: hb_codepoint_t) -> Bool { hb_set_has(set, glyph) != 0 }
  func insert(_ glyph: hb_codepoint_t) { hb_set_add(set, glyph) }
  func remove(_ glyph: hb_codepoint_t) { hb_set_del(set, glyph) }
  func formUnion(_ other: HBSet) { hb_set_union(set, other.set) }

  func intersects(_ other: HBSet) -> Bool {
    let both = HBSet()
    hb_set_union(both.set, set)
    hb_set_intersect(both.set, other.set)
    return !both.isEmpty
  }
}
