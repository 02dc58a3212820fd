internal import CCairo
import Foundation
import ReceiptLayout
import ReceiptModel

/// No-break spaces in documents. cairo writes a font's glyphs in two subsets, one for
/// characters of the PDF's WinAnsi encoding and one of their own for the rest, and U+00A0 is
/// not among the first (`_cairo_unicode_to_winansi` starts at U+00A1): a German or French
/// price ("12,50 €") embedded a second copy of every font it was set in — its own subset
/// program, hinting tables, widths and `ToUnicode` map, compressed again for every receipt
/// (a fifth of a receipt's font bytes). A no-break space draws nothing, so a document draws
/// the font's space glyph in its place and its text layer holds a space: the page looks the
/// same (glyph positions come from layout, not from the glyph's advance) and extracted text
/// reads "12,50 €" with a plain space. Rasters are not concerned.
extension CairoPainter {
  /// U+00A0 no-break space, U+2007 figure space, U+202F narrow no-break space: blank, one
  /// UTF-16 unit each (cluster offsets stay as they are), outside WinAnsi.
  static let noBreakSpaces: [UInt16] = [0x00A0, 0x2007, 0x202F]

  /// The run as a document draws it (the context's font must be the run's): each no-break
  /// space drawn with the font's own glyph for it becomes the font's space glyph, and a space
  /// in the text.
  func documentRun(_ run: GlyphRun, _ cr: OpaquePointer) -> GlyphRun {
    guard ExactText.hasByte(atLeast: 0xC2, in: run.text), run.text.utf16.contains(where: Self.noBreakSpaces.contains)
    else { return run }
    let blanks = blankGlyphs(for: run.font, cr)
    guard let space = blanks[0x20] else { return run }
    let units = Array(run.text.utf16)
    var out = run
    out.glyphs = run.glyphs.map { glyph in
      guard units.indices.contains(glyph.cluster), Self.noBreakSpaces.contains(units[glyph.cluster]),
        blanks[units[glyph.cluster]] == glyph.id
      else { return glyph }
      var glyph = glyph
      glyph.id = space
      return glyph
    }
    out.text = String(decoding: units.map { Self.noBreakSpaces.contains($0) ? 0x20 : $0 }, as: UTF16.self)
    return out
  }

  /// The glyphs of a space and of each no-break space in a font, as its character map gives
  /// them (`cairo_scaled_font_text_to_glyphs` on the context's font), looked up once per face.
  private func blankGlyphs(for font: FontFace, _ cr: OpaquePointer) -> [UInt16: UInt32] {
    if let known = noBreakSpaceGlyphs[font] { return known }
    var found: [UInt16: UInt32] = [:]
    for unit in [0x20] + Self.noBreakSpaces {
      let utf8 = Array(String(decoding: [unit], as: UTF16.self).utf8)
      var glyphs: UnsafeMutablePointer<cairo_glyph_t>?
      var count: Int32 = 0
      let status = utf8.withUnsafeBufferPointer { bytes in
        bytes.withMemoryRebound(to: CChar.self) { text in
          cairo_scaled_font_text_to_glyphs(
            cairo_get_scaled_font(cr), 0, 0, text.baseAddress, Int32(text.count), &glyphs, &count, nil, nil, nil)
        }
      }
      defer { cairo_glyph_free(glyphs) }
      // Glyph 0 is .notdef: the font has no glyph for the character.
      guard status == CAIRO_STATUS_SUCCESS, count == 1, let glyphs, glyphs[0].index != 0 else { continue }
      found[unit] = UInt32(glyphs[0].index)
    }
    noBreakSpaceGlyphs[font] = found
    return found
  }
}
