internal import CCairo
import Foundation
import ReceiptLayout
import ReceiptModel

/// Barcodes: each run of dark modules in a row is a rectangle (on rasters filled without
/// anti-aliasing: bars land on whole dots). In documents, a symbol of rows of modules (a QR
/// code, a stacked code) is a 1-bit image mask instead, one pixel per module, scaled to the
/// symbol with the nearest-pixel filter (PDF `/ImageMask` with `/Interpolate false`): the same
/// modules, edges as sharp at any zoom, and one `Do` instead of a path of ~1,200 coordinates a
/// QR code, which cairo prints one by one through `snprintf` (a tenth of a PDF receipt's
/// instructions). A linear code stays a path: its few bars cost little, and drawn as shapes
/// they read better at low resolution (zbar read a Code 128 rendered at 150 dpi as a path, not
/// as a mask; the QR code beside it both ways).
extension CairoPainter {
  func paint(_ code: PlacedBarcode, _ cr: OpaquePointer) throws {
    setInk(.black, cr)
    if isDocument, code.modules.count > 1 {
      try paintAsMasks(code, cr)
      return
    }
    var y = code.rect.y
    var bars: [Rect] = []
    for (r, row) in code.modules.enumerated() {
      let h = code.rowHeights[r]
      var c = 0
      while c < row.count {
        guard row[c] else {
          c += 1
          continue
        }
        let start = c
        while c < row.count, row[c] { c += 1 }
        cairo_rectangle(cr, code.rect.x + Double(start) * code.moduleWidth, y, Double(c - start) * code.moduleWidth, h)
        if recording != nil {
          bars.append(
            Rect(
              x: code.rect.x + Double(start) * code.moduleWidth, y: y, width: Double(c - start) * code.moduleWidth,
              height: h))
        }
      }
      y += h
    }
    cairo_fill(cr)
    recording?.bars(bars)
  }

  /// A symbol's rows as masks: each stretch of rows of one height (all of a QR code, the one
  /// row of a linear code; a stacked code's separator rows apart) is one image.
  private func paintAsMasks(_ code: PlacedBarcode, _ cr: OpaquePointer) throws {
    var first = 0
    var y = code.rect.y
    while first < code.modules.count {
      let height = code.rowHeights[first]
      var end = first + 1
      while end < code.modules.count, code.rowHeights[end] == height { end += 1 }
      try paintMask(of: code.modules[first..<end], at: (code.rect.x, y), module: (code.moduleWidth, height), cr)
      y += height * Double(end - first)
      first = end
    }
  }

  /// Fills the dark modules of `rows` (modules of `module` points) from `origin` through an A1
  /// mask with the nearest-pixel filter.
  private func paintMask(
    of rows: ArraySlice<[Bool]>, at origin: (x: Double, y: Double), module: (width: Double, height: Double),
    _ cr: OpaquePointer
  ) throws {
    let width = rows.map(\.count).max() ?? 0
    guard width > 0, module.width > 0, module.height > 0, rows.contains(where: { $0.contains(true) }) else { return }
    let mask = try CairoSurface.image(CAIRO_FORMAT_A1, width: width, height: rows.count)
    let (pixels, stride) = try mask.pixels()
    for (y, row) in rows.enumerated() {
      // A1 packs pixels in 32-bit words of the platform's byte order, the first pixel in the
      // least significant bit on a little-endian machine and in the most on a big-endian one.
      let words = UnsafeMutableRawPointer(pixels + y * stride).assumingMemoryBound(to: UInt32.self)
      for (x, dark) in row.enumerated() where dark {
        #if _endian(little)
          words[x >> 5] |= 1 << UInt32(x & 31)
        #else
          words[x >> 5] |= 0x8000_0000 >> UInt32(x & 31)
        #endif
      }
    }
    cairo_surface_mark_dirty(mask.pointer)
    guard let pattern = cairo_pattern_create_for_surface(mask.pointer) else { throw RenderError.cairo("no pattern") }
    defer { cairo_pattern_destroy(pattern) }
    cairo_pattern_set_filter(pattern, CAIRO_FILTER_NEAREST)
    cairo_save(cr)
    cairo_translate(cr, origin.x, origin.y)
    cairo_scale(cr, module.width, module.height)
    cairo_mask(cr, pattern)
    cairo_restore(cr)
    try mask.check()
    try recording?.mask(rows, width: width, at: origin, module: module)
  }
}
