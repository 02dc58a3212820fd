internal import CCairo
import Foundation
import ReceiptLayout
import ReceiptModel

extension RasterRenderer {
  /// Draws an image or a color glyph run in gray on white at its dot position, dithers it (1-bit)
  /// and darkens the page with it. `page` may be a band of the page whose first row is `top`,
  /// and hold the columns from `left` on: the item's dots are made whole (the same dither) and
  /// only those inside are darkened.
  func composite(
    _ item: LaidOutItem, into page: inout RasterImage, scale: Double, painter: CairoPainter, top: Int = 0,
    left: Int = 0
  ) throws {
    let rect: Rect
    let method: DitherMethod
    switch item {
    case .image(let image):
      rect = image.rect
      method = image.dither
    case .glyphs(let run):
      let above = run.size * run.verticalScale * 1.1
      let below = run.size * run.verticalScale * 0.35
      rect = Rect(x: run.origin.x, y: run.origin.y - above, width: run.width, height: above + below)
      method = glyphDither
    default:
      return
    }
    let x0 = (rect.x * scale).clampedInt(in: -1 << 40...1 << 40)
    let y0 = (rect.y * scale).clampedInt(in: -1 << 40...1 << 40)
    let width = max(1, (rect.width * scale).clampedInt(in: 0...1 << 40))
    let height = max(1, (rect.height * scale).clampedInt(in: 0...1 << 40))
    var key: ImageDotCache.Key?
    if case .image(let image) = item {
      key = ImageDotCache.Key(
        image: image.image, width: width, height: height, phaseX: rect.x * scale - Double(x0),
        phaseY: rect.y * scale - Double(y0), scale: scale, dither: method, gray: page.bitsPerPixel == 8)
    }
    if let key, let dots = caches.imageDots.dots(for: key) {
      Self.darken(&page, with: dots, x0: x0 - left, y0: y0 - top, width: width, height: height)
      return
    }
    let dots = try dots(
      of: item, x0: x0, y0: y0, width: width, height: height, scale: scale, method: method,
      gray: page.bitsPerPixel == 8, painter: painter)
    if let key { caches.imageDots.store(dots, for: key) }
    Self.darken(&page, with: dots, x0: x0 - left, y0: y0 - top, width: width, height: height)
  }

  /// Darkens the page with an item's dots at (x0, y0).
  private static func darken(
    _ page: inout RasterImage, with dots: ImageDotCache.Dots, x0: Int, y0: Int, width: Int, height: Int
  ) {
    // Only the rows and columns inside the page (or band).
    let first = max(0, -y0)
    let rows = first..<max(first, min(height, page.height - y0))
    let left = max(0, -x0)
    let columns = left..<max(left, min(width, page.width - x0))
    let bytesPerLine = page.bytesPerLine
    // Through buffers: a logo is tens of thousands of dots, each a bounds check and a
    // uniqueness check of the page's array when set one at a time.
    page.data.withUnsafeMutableBufferPointer { out in
      switch dots {
      case .gray(let gray):  // made for 8-bit pages only: each dot darkened to its level
        for y in rows {
          let line = (y0 + y) * bytesPerLine + x0
          for x in columns { out[line + x] = min(out[line + x], gray[y * width + x]) }
        }
      case .black(let black):  // made for 1-bit pages only
        // A page byte at a time: the dots of each byte gathered, then one OR (a logo is tens of
        // thousands of dots on every receipt).
        black.withUnsafeBufferPointer { dots in
          for y in rows {
            let (line, row) = ((y0 + y) * bytesPerLine, y * width)
            var x = columns.lowerBound
            while x < columns.upperBound {
              let px = x0 + x
              let end = min(columns.upperBound, x + 8 - (px & 7))
              var (bits, bit) = (UInt8(0), UInt8(0x80) >> UInt8(px & 7))
              while x < end {
                if dots[row + x] { bits |= bit }
                bit >>= 1
                x += 1
              }
              if bits != 0 { out[line + px >> 3] |= bits }
            }
          }
        }
      }
    }
  }

  /// Draws an item in gray on white on a scratch surface of its own size; its gray levels, or
  /// its dithered black dots.
  private func dots(
    of item: LaidOutItem, x0: Int, y0: Int, width: Int, height: Int, scale: Double, method: DitherMethod,
    gray wantsGray: Bool, painter: CairoPainter
  ) throws -> ImageDotCache.Dots {
    let surface = try CairoSurface.image(CAIRO_FORMAT_RGB24, width: width, height: height)
    let context = try CairoContext(surface)
    let cr = context.pointer
    cairo_set_source_rgb(cr, 1, 1, 1)
    cairo_paint(cr)
    cairo_translate(cr, -Double(x0), -Double(y0))
    cairo_scale(cr, scale, scale)
    // The scratch surface is RGB: paint with normal compositing, not alpha-target ink.
    painter.alphaTarget = false
    defer { painter.alphaTarget = true }
    switch item {
    case .image(let image): try painter.paint(image, cr)
    case .glyphs(let run): try painter.draw(run, cr)
    default: break
    }
    let (pixels, stride) = try surface.pixels()
    var gray = [UInt8](repeating: 255, count: width * height)
    for y in 0..<height {
      for x in 0..<width {
        let p = pixels.advanced(by: y * stride + x * 4).withMemoryRebound(to: UInt32.self, capacity: 1) { $0.pointee }
        let r = (p >> 16) & 0xFF
        let g = (p >> 8) & 0xFF
        let b = p & 0xFF
        gray[y * width + x] = UInt8((299 * r + 587 * g + 114 * b) / 1000)
      }
    }
    if wantsGray { return .gray(gray) }
    return .black(Dither.apply(method, gray: gray, width: width, height: height))
  }
}
