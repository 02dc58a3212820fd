internal import CCairo
import Foundation
import ReceiptLayout
import ReceiptModel

/// Paints laid-out pages on a cairo context. It measures nothing: every position comes from
/// layout. Shared by the PDF and raster renderers.
final class CairoPainter {
  let fonts = CairoFonts()
  /// Black runs drawn before on alpha rasters (nil: every run is drawn glyph by glyph).
  var runBitmaps: GlyphRunBitmaps?
  /// Each face's glyphs for a space and the no-break spaces (documents; see `documentRun`).
  var noBreakSpaceGlyphs: [FontFace: [UInt16: UInt32]] = [:]
  /// Fill shapes (rules, barcodes) with anti-aliasing; off for 1-bit output.
  var antialias = true
  /// Rasterize glyphs with gray coverage. 1-bit output keeps it on and cuts the coverage at 50%:
  /// pixman composites 8-bit glyph masks on a fast path, 1-bit masks on a slow general one.
  var textAntialias = true
  /// The target is an alpha-only surface (A1/A8) where alpha is ink: white ink clears.
  var alphaTarget = false
  /// The target is a document (PDF): text is drawn with its cluster map
  /// (`cairo_show_text_glyphs`) so it can be extracted. Rasters draw glyphs alone.
  var isDocument = true
  /// Where a document's images come from: kept surfaces lent for this render (PDFRenderer gives
  /// them back after its PDF surface is destroyed). nil: a new surface for each image drawn.
  var imageSurfaces: LentImageSurfaces?
  /// Where each cairo call on a document is written down too (the benchmarks' cairo floor); nil
  /// but there.
  var recording: PaintRecording?

  /// Paints one page's items; the context's user space is points with (0, 0) at the page's top-left.
  /// Items for which `skip` is true are left out (the raster renderer dithers those itself).
  func paint(_ page: LaidOutPage, on cr: OpaquePointer, skip: (LaidOutItem) -> Bool = { _ in false }) throws {
    let options = cairo_font_options_create()
    defer { cairo_font_options_destroy(options) }
    cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_NONE)
    cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF)
    cairo_font_options_set_antialias(options, textAntialias ? CAIRO_ANTIALIAS_GRAY : CAIRO_ANTIALIAS_NONE)
    cairo_set_font_options(cr, options)
    cairo_set_antialias(cr, antialias ? CAIRO_ANTIALIAS_DEFAULT : CAIRO_ANTIALIAS_NONE)
    // Documents: consecutive left-to-right runs in one font and ink go to cairo as one text
    // call (a call has one direction): each call costs cairo's PDF surface an analysis and a
    // text object. (Each also unions its box into the page's region, a pass over the region's
    // rectangles that made long receipts quadratic; PDFRenderer paints the page white first,
    // which makes the region the whole page and every later union free.)
    // Alpha rasters: black ink is added to the coverage (saturating addition, in any order with
    // the same bytes), so every black run of a font goes in one call, up to the next item that
    // does not add (white ink, an image). cairo draws glyphs under one process-wide lock: with
    // two workers, a call per line made them wait on each other.
    var groups: [[GlyphRun]] = []
    func flush() throws {
      for group in groups {
        if adds, let runBitmaps {
          try drawAdding(group, cr, bitmaps: runBitmaps)
        } else if group.count == 1 {
          try draw(group[0], cr)
        } else {
          try draw(batch: group, cr)
        }
      }
      groups.removeAll(keepingCapacity: true)
    }
    let adds = alphaTarget && !isDocument
    for item in page.items where !skip(item) {
      if case .glyphs(let run) = item, isDocument ? !run.rightToLeft : adds && run.ink == .black {
        if let index = groups.lastIndex(where: { $0[0].canShareTextCall(with: run) }), groups[index].count < 4096,
          adds || index == groups.count - 1
        {
          groups[index].append(run)
        } else {
          if !adds { try flush() }
          groups.append([run])
        }
        continue
      }
      if !(adds && item.addsBlackInk) { try flush() }
      switch item {
      case .rect(let fill):
        setInk(fill.ink, cr)
        if isDocument, let dash = fill.dash {
          stroke(fill.rect, dash: dash, cr)
          recording?.stroke(fill.rect, dash: dash, ink: fill.ink)
        } else {
          for piece in fill.pieces {
            cairo_rectangle(cr, piece.x, piece.y, piece.width, piece.height)
            cairo_fill(cr)
            recording?.rect(piece, ink: fill.ink)
          }
        }
      case .glyphs(let run):
        try draw(run, cr)
      case .barcode(let code):
        try paint(code, cr)
      case .image(let image):
        try paint(image, cr)
      }
    }
    try flush()
    let status = cairo_status(cr)
    guard status == CAIRO_STATUS_SUCCESS else {
      throw RenderError.cairo(String(cString: cairo_status_to_string(status)))
    }
  }

  func setInk(_ ink: Ink, _ cr: OpaquePointer) {
    if alphaTarget {
      // On alpha-only surfaces opaque ink OVER equals a saturating ADD, which pixman composites
      // on a fast path (OVER with A8 masks on A8 takes its slow general path).
      cairo_set_operator(cr, ink == .black ? CAIRO_OPERATOR_ADD : CAIRO_OPERATOR_CLEAR)
      cairo_set_source_rgb(cr, 0, 0, 0)
      return
    }
    let v: Double = ink == .black ? 0 : 1
    cairo_set_source_rgb(cr, v, v, v)
  }

  /// A dashed rule as one stroke along its middle: cairo's PDF surface writes and analyses each
  /// fill on its own (a dashed rule on 80 mm was 32 of them).
  private func stroke(_ rule: Rect, dash: Double, _ cr: OpaquePointer) {
    cairo_save(cr)
    var pattern = [dash, dash]
    cairo_set_dash(cr, &pattern, 2, 0)
    cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT)
    cairo_set_line_width(cr, rule.height)
    cairo_move_to(cr, rule.x, rule.y + rule.height / 2)
    cairo_line_to(cr, rule.x + rule.width, rule.y + rule.height / 2)
    cairo_stroke(cr)
    cairo_restore(cr)
  }

  /// Draws an image's gray pixels scaled into its rectangle.
  func paint(_ image: PlacedImage, _ cr: OpaquePointer) throws {
    let surface = try imageSurfaces?.surface(for: image.image) ?? Self.surface(image.image)
    cairo_save(cr)
    cairo_set_operator(cr, CAIRO_OPERATOR_OVER)
    cairo_translate(cr, image.rect.x, image.rect.y)
    cairo_scale(cr, image.rect.width / Double(image.image.width), image.rect.height / Double(image.image.height))
    cairo_set_source_surface(cr, surface.pointer, 0, 0)
    cairo_paint(cr)
    cairo_restore(cr)
    withExtendedLifetime(surface) {}
    try recording?.image(image.image, in: image.rect)
  }

  /// An RGB24 surface holding a decoded image's gray values.
  static func surface(_ image: GrayImage) throws -> CairoSurface {
    let surface = try CairoSurface.image(CAIRO_FORMAT_RGB24, width: image.width, height: image.height)
    let (pixels, stride) = try surface.pixels()
    image.pixels.withUnsafeBufferPointer { gray in
      for y in 0..<image.height {
        let row = UnsafeMutableRawPointer(pixels + y * stride).assumingMemoryBound(to: UInt32.self)
        for x in 0..<image.width {
          let v = UInt32(gray[y * image.width + x])
          row[x] = v << 16 | v << 8 | v
        }
      }
    }
    cairo_surface_mark_dirty(surface.pointer)
    return surface
  }

  /// Draws a glyph run with `cairo_show_text_glyphs`, so PDF viewers extract the source text.
  func draw(_ run: GlyphRun, _ cr: OpaquePointer) throws {
    cairo_set_font_face(cr, try fonts.face(for: run.font))
    var matrix = cairo_matrix_t()
    cairo_matrix_init_scale(&matrix, run.size * run.horizontalScale, run.size * run.verticalScale)
    cairo_set_font_matrix(cr, &matrix)
    setInk(run.ink, cr)
    let run = isDocument ? documentRun(run, cr) : run
    var glyphs = run.cairoGlyphs
    guard isDocument else {
      cairo_show_glyphs(cr, &glyphs, Int32(glyphs.count))
      return
    }
    let utf8 = Array(Self.cairoText(run.text).utf8)
    var cairoClusters: [cairo_text_cluster_t] = []
    let backward = Self.clusters(of: run, utf8Count: utf8.count, into: &cairoClusters)
    utf8.withUnsafeBufferPointer { bytes in
      bytes.withMemoryRebound(to: CChar.self) { text in
        cairo_show_text_glyphs(
          cr, text.baseAddress, Int32(text.count), &glyphs, Int32(glyphs.count), &cairoClusters,
          Int32(cairoClusters.count), backward ? CAIRO_TEXT_CLUSTER_FLAG_BACKWARD : cairo_text_cluster_flags_t(0))
      }
    }
    recording?.text(
      font: run.font, xScale: run.size * run.horizontalScale, yScale: run.size * run.verticalScale, ink: run.ink,
      backward: backward, glyphs: glyphs, clusters: cairoClusters, utf8: utf8)
  }

  /// Draws runs of one font and ink with one text call: glyphs at their page positions and, in
  /// documents (left-to-right runs only), the runs' texts and cluster maps one after the other.
  func draw(batch runs: [GlyphRun], _ cr: OpaquePointer) throws {
    let first = runs[0]
    cairo_set_font_face(cr, try fonts.face(for: first.font))
    var matrix = cairo_matrix_t()
    cairo_matrix_init_scale(&matrix, first.size * first.horizontalScale, first.size * first.verticalScale)
    cairo_set_font_matrix(cr, &matrix)
    setInk(first.ink, cr)
    var glyphs: [cairo_glyph_t] = []
    guard isDocument else {
      for run in runs { run.appendCairoGlyphs(to: &glyphs) }
      cairo_show_glyphs(cr, &glyphs, Int32(glyphs.count))
      return
    }
    // The texts, cluster maps and glyphs of all runs, each array reserved once at its size.
    var glyphCount = 0
    var byteCount = 0
    for run in runs {
      glyphCount += run.glyphs.count
      byteCount += run.text.utf8.count
    }
    var utf8: [UInt8] = []
    var clusters: [cairo_text_cluster_t] = []
    utf8.reserveCapacity(byteCount)
    clusters.reserveCapacity(glyphCount)
    glyphs.reserveCapacity(glyphCount)
    for original in runs {
      let run = documentRun(original, cr)
      let start = utf8.count
      utf8.append(contentsOf: Self.cairoText(run.text).utf8)
      _ = Self.clusters(of: run, utf8Count: utf8.count - start, into: &clusters)
      run.appendCairoGlyphs(to: &glyphs)
    }
    utf8.withUnsafeBufferPointer { bytes in
      bytes.withMemoryRebound(to: CChar.self) { text in
        cairo_show_text_glyphs(
          cr, text.baseAddress, Int32(text.count), &glyphs, Int32(glyphs.count), &clusters, Int32(clusters.count),
          cairo_text_cluster_flags_t(0))
      }
    }
    recording?.text(
      font: first.font, xScale: first.size * first.horizontalScale, yScale: first.size * first.verticalScale,
      ink: first.ink, backward: false, glyphs: glyphs, clusters: clusters, utf8: utf8)
  }

  /// The text as cairo accepts it: cairo refuses noncharacters (U+FFFE, U+FFFF, U+FDD0–FDEF…)
  /// as invalid UTF-8 and fails the whole PDF, so they become U+FFFD (or U+1FFFD outside the
  /// BMP), which keeps every UTF-8 and UTF-16 offset of the cluster map.
  static func cairoText(_ text: String) -> String {
    func isNoncharacter(_ v: UInt32) -> Bool { (0xFDD0...0xFDEF).contains(v) || v & 0xFFFE == 0xFFFE }
    // Each noncharacter is U+FDD0 or above, whose UTF-8 starts with 0xEF or more.
    guard ExactText.hasByte(atLeast: 0xEF, in: text) else { return text }
    guard text.unicodeScalars.contains(where: { isNoncharacter($0.value) }) else { return text }
    var scalars = String.UnicodeScalarView()
    for scalar in text.unicodeScalars {
      if isNoncharacter(scalar.value) {
        scalars.append(Unicode.Scalar(scalar.value > 0xFFFF ? 0x1FFFD : 0xFFFD)!)
      } else {
        scalars.append(scalar)
      }
    }
    return String(scalars)
  }

  /// Cluster mapping for cairo, appended to `clusters`: (UTF-8 bytes, glyph count) in text
  /// order; returns whether the glyphs are mapped from the end (a right-to-left run: cairo's
  /// BACKWARD flag). One pass over the glyphs, no array of their clusters (this was 2 % of a
  /// PDF's instructions), written straight into cairo's array.
  static func clusters(of run: GlyphRun, utf8Count: Int, into clusters: inout [cairo_text_cluster_t]) -> Bool {
    func append(_ bytes: Int, _ glyphs: Int) {
      clusters.append(cairo_text_cluster_t(num_bytes: Int32(bytes), num_glyphs: Int32(glyphs)))
    }
    let glyphs = run.glyphs
    let count = glyphs.count
    let backward = run.rightToLeft
    func cluster(_ i: Int) -> Int { backward ? glyphs[count - 1 - i].cluster : glyphs[i].cluster }
    let utf16Count = run.text.utf16.count
    var ordered = count > 0 && cluster(0) >= 0
    if ordered {
      var last = cluster(0)
      for i in 1..<count {
        let c = cluster(i)
        guard c >= last else {
          ordered = false
          break
        }
        last = c
      }
      ordered = ordered && last <= utf16Count
    }
    guard ordered else {
      append(utf8Count, count)
      return false
    }
    // UTF-8 offset of every UTF-16 offset of the text; the same offset in ASCII.
    let ascii = run.text.utf8.count == utf16Count
    var utf8At: [Int] = []
    if !ascii {
      utf8At.reserveCapacity(utf16Count + 1)
      utf8At.append(0)
      for scalar in run.text.unicodeScalars {
        let start = utf8At[utf8At.count - 1]
        if UTF16.width(scalar) == 2 { utf8At.append(start) }  // inside a surrogate pair
        utf8At.append(start + UTF8.width(scalar))
      }
    }
    func utf8(_ offset: Int) -> Int { ascii ? offset : utf8At[offset] }
    // Groups of equal cluster values; each owns the text up to the next group's cluster (the
    // first from the text's start).
    var (start, current, glyphCount) = (0, cluster(0), 0)
    for i in 0..<count {
      let c = cluster(i)
      if c != current {
        append(utf8(c) - utf8(start), glyphCount)
        (start, current, glyphCount) = (c, c, 0)
      }
      glyphCount += 1
    }
    append(utf8(utf16Count) - utf8(start), glyphCount)
    return backward
  }
}

extension LaidOutItem {
  /// Drawn on an alpha raster by adding black ink (rectangles and barcodes in black): such
  /// items can be drawn before or after black glyphs with the same result.
  fileprivate var addsBlackInk: Bool {
    switch self {
    case .rect(let fill): fill.ink == .black
    case .barcode: true
    case .glyphs, .image: false
    }
  }
}

extension GlyphRun {
  /// The run's glyphs at their page positions, as cairo takes them.
  fileprivate var cairoGlyphs: [cairo_glyph_t] {
    var array: [cairo_glyph_t] = []
    array.reserveCapacity(glyphs.count)
    appendCairoGlyphs(to: &array)
    return array
  }

  /// Appends the run's glyphs at their page positions to cairo's array.
  fileprivate func appendCairoGlyphs(to array: inout [cairo_glyph_t]) {
    for glyph in glyphs {
      array.append(cairo_glyph_t(index: UInt(glyph.id), x: origin.x + glyph.x, y: origin.y + glyph.y))
    }
  }

  /// Whether another run can be drawn in the same cairo text call (same font, size and ink).
  func canShareTextCall(with other: GlyphRun) -> Bool {
    font == other.font && size == other.size && horizontalScale == other.horizontalScale
      && verticalScale == other.verticalScale && ink == other.ink
  }
}
