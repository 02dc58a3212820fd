internal import CCairo
import Foundation
public import ReceiptLayout
import ReceiptModel

/// Drawing a page a band of rows at a time, so a printer can be sent the top of a receipt while
/// the rest is still being drawn (a raw socket printer starts feeding paper at once). Stacked,
/// the bands are exactly the page ``RasterRenderer/render(_:)`` draws: each band is drawn with
/// the page moved up by a whole number of dots, so every glyph, bar and dot lands where it would
/// on the whole page, and logos are dithered whole and cut into bands.
///
/// 1-bit only (what raw printers take): drawn without anti-aliasing, a glyph cut by a band's
/// edge is the same dots as on the whole page; anti-aliased, cairo composites a clipped glyph
/// another way, and a faint edge pixel can come out otherwise (seen in a Japanese receipt).
extension RasterRenderer {
  /// Renders page `index` in bands of at most `rows` dot rows, top to bottom, handing each band
  /// (full page width) and its first row to `body` before the next is drawn. Checks
  /// ``checkBudget(_:pages:copies:)`` first. The renderer must be 1-bit (`gray` false).
  public func render(
    _ receipt: LaidOutReceipt, page index: Int, bands rows: Int,
    _ body: (_ top: Int, _ band: RasterImage) throws -> Void
  ) throws {
    precondition(!gray, "pages are drawn in bands 1-bit only")
    try checkBudget(receipt, pages: index..<(index + 1))
    let page = receipt.pages[index]
    let setup = receipt.pageSetup
    let rows = max(1, rows)
    let painter = CairoPainter()
    painter.runBitmaps = runBitmaps
    painter.antialias = gray
    painter.alphaTarget = true
    painter.isDocument = false
    let (width, height) = Self.size(of: page, setup: setup)
    let scale = Double(setup.resolution.dpi) / 72
    let extents = page.items.map { Self.verticalExtent(of: $0, scale: scale) }
    var top = 0
    while top < height {
      let count = min(rows, height - top)
      let band = top..<(top + count)
      let surface = try caches.pageBuffers.surface(width: width, height: count)
      let context = try CairoContext(surface)
      cairo_translate(context.pointer, 0, -Double(top))
      cairo_scale(context.pointer, scale, scale)
      // The items that can ink the band, in paint order (cairo would clip the rest, at a cost
      // per item and band).
      var visible = page
      visible.items = zip(page.items, extents).filter { $0.1.overlaps(band) }.map(\.0)
      try painter.paint(visible, on: context.pointer, skip: Self.isDithered)
      let columns = imageColumns(pageWidth: width, setup: setup)
      var image = try Self.image(
        from: surface, columns: columns, height: count, gray: gray, buffers: caches.pageBuffers)
      for item in visible.items where Self.isDithered(item) {
        try composite(item, into: &image, scale: scale, painter: painter, top: top, left: columns.lowerBound)
      }
      try body(top, image)
      top += count
    }
  }

  /// The dot rows an item can ink, with room to spare: rectangles, bars and images to the dot
  /// (one more each side for rounding); a glyph run from three ems above its highest glyph to
  /// three ems below its lowest (no glyph outline reaches that far from its position; marks
  /// stacked on a letter are glyphs of their own, positioned).
  static func verticalExtent(of item: LaidOutItem, scale: Double) -> Range<Int> {
    let top: Double
    let bottom: Double
    switch item {
    case .rect(let fill): (top, bottom) = (fill.rect.y, fill.rect.maxY)
    case .barcode(let code): (top, bottom) = (code.rect.y, code.rect.maxY)
    case .image(let image): (top, bottom) = (image.rect.y, image.rect.maxY)
    case .glyphs(let run):
      let em = run.size * max(1, run.verticalScale)
      let lowest = run.glyphs.map(\.y).max() ?? 0
      let highest = run.glyphs.map(\.y).min() ?? 0
      (top, bottom) = (run.origin.y + highest - 3 * em, run.origin.y + lowest + 3 * em)
    }
    let first = (top * scale).clampedInt(.down, in: -1 << 40...1 << 40) - 1
    let last = (bottom * scale).clampedInt(.up, in: -1 << 40...1 << 40) + 1
    return first..<max(first + 1, last + 1)
  }
}
