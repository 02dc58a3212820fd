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
  /// UTF-16 unit each (cluster offsets stay as they are), outside WinAnsi. ``spacedText(_:)``
  /// finds them by their UTF-8 bytes: one added here is added there (`NoBreakSpaceTextTests`
  /// reads texts by this list).
  static let noBreakSpaces: [UInt16] = [0x00A0, 0x2007, 0x202F]

  /// The run as a document draws it (the context's font must be the run's): each no-break
  /// space drawn with the font's own glyph for it becomes the font's space glyph, and a space
  /// in the text.
  func documentRun(_ run: GlyphRun, _ cr: OpaquePointer) -> GlyphRun {
    // Every no-break space is a byte of 0xC2 or more in UTF-8: most runs are answered by a byte
    // scan, the rest by one pass over their bytes (the UTF-16 view was a slow path for every
    // run with a non-ASCII letter, and the text was rebuilt from UTF-16 units).
    guard ExactText.hasByte(atLeast: 0xC2, in: run.text) else { return run }
    guard let (text, found) = Self.spacedText(run.text) else { return run }
    let blanks = blankGlyphs(for: run.font, cr)
    guard let space = blanks[0x20] else { return run }
    var out = run
    out.glyphs = run.glyphs.map { glyph in
      guard let unit = found.first(where: { $0.offset == glyph.cluster })?.unit, blanks[unit] == glyph.id
      else { return glyph }
      var glyph = glyph
      glyph.id = space
      return glyph
    }
    out.text = text
    return out
  }

  /// A text with each no-break space a space, and where each was (its UTF-16 offset, which a
  /// glyph's cluster is) with which one it was; nil when it has none.
  static func spacedText(_ text: String) -> (String, [(offset: Int, unit: UInt16)])? {
    func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> (String, [(offset: Int, unit: UInt16)])? {
      var found: [(offset: Int, unit: UInt16)] = []
      var out: [UInt8] = []
      var offset = 0  // in UTF-16 units, at byte i
      var copied = 0  // bytes before this are in `out`
      var i = 0
      while i < bytes.count {
        let b = bytes[i]
        var unit: UInt16?
        var length = 0
        if b == 0xC2, i + 1 < bytes.count, bytes[i + 1] == 0xA0 {
          (unit, length) = (0x00A0, 2)
        } else if b == 0xE2, i + 2 < bytes.count, bytes[i + 1] == 0x80, bytes[i + 2] == 0x87 || bytes[i + 2] == 0xAF {
          (unit, length) = (bytes[i + 2] == 0x87 ? 0x2007 : 0x202F, 3)
        }
        if let unit {
          if out.isEmpty { out.reserveCapacity(bytes.count) }
          out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[copied..<i]))
          out.append(0x20)
          found.append((offset, unit))
          i += length
          copied = i
          offset += 1
          continue
        }
        // A scalar starts at every byte but a continuation byte; one beyond the BMP (a 4-byte
        // sequence) is two UTF-16 units.
        if b & 0xC0 != 0x80 { offset += b >= 0xF0 ? 2 : 1 }
        i += 1
      }
      guard !found.isEmpty else { return nil }
      out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[copied..<bytes.count]))
      return (String(decoding: out, as: UTF8.self), found)
    }
    if let result = text.utf8.withContiguousStorageIfAvailable(scan) { return result }
    return Array(text.utf8).withUnsafeBufferPointer(scan)
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
