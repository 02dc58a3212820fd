internal import CCairo
import Foundation
import ReceiptLayout
import ReceiptModel

/// Black glyph runs on alpha rasters through ``GlyphRunBitmaps``: a run drawn before is added
/// as one rectangle of coverage; the others go to cairo together, glyph by glyph.
extension CairoPainter {
  /// Draws black runs of one font on an alpha raster (ink adds, in any order).
  func drawAdding(_ runs: [GlyphRun], _ cr: OpaquePointer, bitmaps: GlyphRunBitmaps) throws {
    var matrix = cairo_matrix_t()
    cairo_get_matrix(cr, &matrix)
    let face = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(try fonts.face(for: runs[0].font))))
    var rest: [GlyphRun] = []
    for run in runs {
      guard let (key, dot) = Self.key(for: run, face: face, matrix: matrix, antialias: textAntialias) else {
        rest.append(run)
        continue
      }
      var (bitmap, shouldKeep) = bitmaps.bitmap(for: key)
      if bitmap == nil, shouldKeep {
        bitmap = try makeBitmap(of: run, key: key, alignedAt: dot.x, cr)
        bitmaps.keep(bitmap, for: key)
      }
      guard let bitmap else {
        rest.append(run)
        continue
      }
      try add(bitmap, at: (dot.x + bitmap.left, dot.y + bitmap.top), cr)
    }
    if rest.count == 1 { try draw(rest[0], cr) } else if !rest.isEmpty { try draw(batch: rest, cr) }
  }

  /// A run's key and the dot its first glyph lands on, as cairo places glyphs: the position
  /// through the page's matrix (`cairo_matrix_transform_point`), rounded ⌊x + ½⌋. Nil when the
  /// run is not kept (a rotated or skewed matrix, a color font, no glyphs, far off the page).
  static func key(for run: GlyphRun, face: UInt, matrix m: cairo_matrix_t, antialias: Bool)
    -> (GlyphRunBitmaps.Key, dot: (x: Int, y: Int))?
  {
    guard m.xy == 0, m.yx == 0, !run.font.isColor, !run.glyphs.isEmpty else { return nil }
    var glyphs: [SIMD3<Int32>] = []
    glyphs.reserveCapacity(run.glyphs.count)
    var first = (x: 0.0, y: 0.0)
    for (i, glyph) in run.glyphs.enumerated() {
      let (x, y) = (run.origin.x + glyph.x, run.origin.y + glyph.y)
      let dx = ((m.xx * x + m.xy * y) + m.x0 + 0.5).rounded(.down)
      let dy = ((m.yx * x + m.yy * y) + m.y0 + 0.5).rounded(.down)
      guard abs(dx) < 16_777_216, abs(dy) < 16_777_216 else { return nil }
      if i == 0 { first = (dx, dy) }
      glyphs.append(SIMD3(Int32(bitPattern: glyph.id), Int32(dx - first.x), Int32(dy - first.y)))
    }
    let key = GlyphRunBitmaps.Key(
      face: face, size: run.size, horizontalScale: run.horizontalScale, verticalScale: run.verticalScale,
      xx: m.xx, yy: m.yy, antialias: antialias, glyphs: glyphs)
    return (key, (Int(first.x), Int(first.y)))
  }

  /// Draws a run alone on a rectangle of its own at its dot offsets, with the page's font,
  /// scale and options; nil when it has no ink or its ink touches the rectangle's edge (it
  /// might reach beyond).
  /// The coverage kept is the ink's rows, and its columns widened to whole 16-dot blocks of
  /// the page where the run's first glyph is at dot `x` (``addSaturating(_:_:count:)`` adds
  /// 16 bytes at once, aligned on the page, and the rest one by one; blank columns add nothing).
  private func makeBitmap(of run: GlyphRun, key: GlyphRunBitmaps.Key, alignedAt x: Int, _ cr: OpaquePointer) throws
    -> GlyphRunBitmaps.Bitmap?
  {
    let face = try fonts.face(for: run.font)
    var fontMatrix = cairo_matrix_t()
    cairo_matrix_init_scale(&fontMatrix, run.size * run.horizontalScale, run.size * run.verticalScale)
    // The ink's extents from the page's scaled font, glyphs at their dot offsets.
    cairo_set_font_face(cr, face)
    cairo_set_font_matrix(cr, &fontMatrix)
    var atOffsets = key.glyphs.map {
      cairo_glyph_t(index: UInt(UInt32(bitPattern: $0.x)), x: Double($0.y) / key.xx, y: Double($0.z) / key.yy)
    }
    var extents = cairo_text_extents_t()
    cairo_scaled_font_glyph_extents(cairo_get_scaled_font(cr), &atOffsets, Int32(atOffsets.count), &extents)
    let left = (extents.x_bearing * key.xx).clampedInt(.down, in: -1 << 30...1 << 30) - 2
    let top = (extents.y_bearing * key.yy).clampedInt(.down, in: -1 << 30...1 << 30) - 2
    let width = ((extents.x_bearing + extents.width) * key.xx).clampedInt(.up, in: -1 << 30...1 << 30) + 2 - left
    let height = ((extents.y_bearing + extents.height) * key.yy).clampedInt(.up, in: -1 << 30...1 << 30) + 2 - top
    guard extents.width.isFinite, extents.height.isFinite, (1...4096).contains(width), (1...1024).contains(height)
    else { return nil }
    let surface = try CairoSurface.image(CAIRO_FORMAT_A8, width: width, height: height)  // cleared by cairo
    let context = try CairoContext(surface)
    let small = context.pointer
    cairo_scale(small, key.xx, key.yy)
    let options = cairo_font_options_create()
    defer { cairo_font_options_destroy(options) }
    cairo_get_font_options(cr, options)
    cairo_set_font_options(small, options)
    cairo_set_font_face(small, face)
    cairo_set_font_matrix(small, &fontMatrix)
    cairo_set_operator(small, CAIRO_OPERATOR_ADD)
    cairo_set_source_rgb(small, 0, 0, 0)
    // Dot offsets from the rectangle's corner, in user units that cairo maps back to those dots.
    var glyphs = key.glyphs.map {
      cairo_glyph_t(
        index: UInt(UInt32(bitPattern: $0.x)), x: Double(Int($0.y) - left) / key.xx, y: Double(Int($0.z) - top) / key.yy
      )
    }
    cairo_show_glyphs(small, &glyphs, Int32(glyphs.count))
    let (pixels, stride) = try surface.pixels()
    // The ink's rows and columns, in one pass.
    var (firstRow, lastRow, firstColumn, lastColumn) = (height, -1, width, -1)
    for y in 0..<height {
      let row = pixels + y * stride
      guard let first = (0..<width).first(where: { row[$0] != 0 }) else { continue }
      let last = (first..<width).last { row[$0] != 0 }!
      (firstRow, lastRow) = (min(firstRow, y), y)
      (firstColumn, lastColumn) = (min(firstColumn, first), max(lastColumn, last))
    }
    // No ink: drawn as it is (nothing), not kept; ink on the edge might reach beyond it.
    guard lastRow >= 0, firstRow > 0, lastRow < height - 1, firstColumn > 0, lastColumn < width - 1 else {
      return nil
    }
    let start = firstColumn - (((x + left + firstColumn) % 16) + 16) % 16
    let keptWidth = (lastColumn + 1 - start + 15) / 16 * 16
    let kept = GlyphRunBitmaps.Bitmap(
      width: keptWidth, height: lastRow + 1 - firstRow, stride: keptWidth, left: left + start, top: top + firstRow)
    memset(kept.pixels, 0, kept.stride * kept.height)
    let from = max(0, start)
    let to = min(width, start + keptWidth)
    for y in 0..<kept.height {
      memcpy(kept.pixels + y * kept.stride + (from - start), pixels + (firstRow + y) * stride + from, to - from)
    }
    return kept
  }

  /// Adds kept coverage to the page with its top-left at a dot, straight into its pixels (every
  /// raster page is an A8 image): a saturating add of 16 dots at a time, clipped to the page —
  /// the sum pixman's ADD of a black source through the coverage gives
  /// (`sse2_composite_add_n_8_8`: 255 × m / 255 = m), without cairo's mask set-up, which cost
  /// twice the adding itself (callgrind: 10 % of an ESC/POS receipt's instructions for ~150
  /// runs).
  private func add(_ bitmap: GlyphRunBitmaps.Bitmap, at dot: (x: Int, y: Int), _ cr: OpaquePointer) throws {
    let target = cairo_get_target(cr)
    guard cairo_surface_get_type(target) == CAIRO_SURFACE_TYPE_IMAGE,
      cairo_image_surface_get_format(target) == CAIRO_FORMAT_A8
    else { throw RenderError.cairo("kept glyph runs are added to A8 image pages only") }
    let (width, height) = (Int(cairo_image_surface_get_width(target)), Int(cairo_image_surface_get_height(target)))
    let (x0, x1) = (max(0, dot.x), min(width, dot.x + bitmap.width))
    let (y0, y1) = (max(0, dot.y), min(height, dot.y + bitmap.height))
    guard x0 < x1, y0 < y1 else { return }
    cairo_surface_flush(target)
    let status = cairo_surface_status(target)
    guard status == CAIRO_STATUS_SUCCESS, let data = cairo_image_surface_get_data(target) else {
      throw RenderError.cairo(String(cString: cairo_status_to_string(status)))
    }
    let stride = Int(cairo_image_surface_get_stride(target))
    let count = x1 - x0
    for y in y0..<y1 {
      let to = UnsafeMutableRawPointer(data + y * stride + x0)
      let from = UnsafeRawPointer(bitmap.pixels + (y - dot.y) * bitmap.stride + (x0 - dot.x))
      Self.addSaturating(from, to, count: count)
    }
    cairo_surface_mark_dirty_rectangle(target, Int32(x0), Int32(y0), Int32(count), Int32(y1 - y0))
    withExtendedLifetime(bitmap) {}
  }

  /// `to[i] = min(255, to[i] + from[i])` for `count` bytes.
  static func addSaturating(_ from: UnsafeRawPointer, _ to: UnsafeMutableRawPointer, count: Int) {
    var i = 0
    while i + 16 <= count {
      let a = to.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
      let b = from.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
      let sum = a &+ b
      to.storeBytes(of: sum.replacing(with: .max, where: sum .< a), toByteOffset: i, as: SIMD16<UInt8>.self)
      i += 16
    }
    while i < count {
      let (a, b) = (to.load(fromByteOffset: i, as: UInt8.self), from.load(fromByteOffset: i, as: UInt8.self))
      let (sum, overflow) = a.addingReportingOverflow(b)
      to.storeBytes(of: overflow ? .max : sum, toByteOffset: i, as: UInt8.self)
      i += 1
    }
  }
}
