internal import CCairo
import Foundation
public import ReceiptLayout
public import ReceiptModel

/// Renders laid-out pages to printer dots at the page setup's resolution: the full paper width by
/// the cut length. 1-bit output is drawn without anti-aliasing (barcodes land on whole dots);
/// logos and color emoji are drawn in gray and dithered. 8-bit output keeps anti-aliased gray.
public struct RasterRenderer: Sendable {
  /// 8-bit gray instead of 1-bit.
  public var gray: Bool
  /// How color glyphs (emoji) become dots; images use their own method.
  public var glyphDither: DitherMethod
  /// Images of the printable columns only (``printableColumns(pageWidth:setup:)``), what a raw
  /// printer is sent: the page is drawn whole and its dots are taken from those columns, so no
  /// full-width image is made and then cropped (a dot shift per byte on 80 mm paper).
  public var printableOnly: Bool
  /// What it keeps between receipts (its engine's context).
  let caches: RenderCaches
  /// Where black glyph runs drawn before are kept (nil: every run is drawn glyph by glyph;
  /// tests compare both).
  var runBitmaps: GlyphRunBitmaps?

  /// Creates a renderer that keeps what it draws in the process's context.
  public init(gray: Bool = false, glyphDither: DitherMethod = .floydSteinberg, printableOnly: Bool = false) {
    self.init(gray: gray, glyphDither: glyphDither, printableOnly: printableOnly, caches: .process)
  }

  /// Creates a renderer that keeps what it draws in `caches`.
  package init(
    gray: Bool = false, glyphDither: DitherMethod = .floydSteinberg, printableOnly: Bool = false,
    caches: RenderCaches
  ) {
    self.gray = gray
    self.glyphDither = glyphDither
    self.printableOnly = printableOnly
    self.caches = caches
    runBitmaps = caches.glyphRuns
  }

  /// The columns of a page of `width` dots that its images hold.
  func imageColumns(pageWidth width: Int, setup: PageSetup) -> Range<Int> {
    printableOnly ? Self.printableColumns(pageWidth: width, setup: setup) : 0..<width
  }

  /// Width and height in dots of a page: floor(paper width in 1/100 mm × dpi / 2540) by
  /// ceil(cut length × dpi / 72), the sizes libcups computes for the same media.
  public static func size(of page: LaidOutPage, setup: PageSetup) -> (width: Int, height: Int) {
    let dpi = setup.resolution.dpi
    let hundredths = (setup.paper.width.millimetres * 100).clampedInt(in: 0...1 << 40)
    let height = (page.cutLength * Double(dpi) / 72 - 1e-9).clampedInt(.up, in: 0...1 << 40)
    return (hundredths * dpi / 2540, height)
  }

  /// The printable columns of a page raster: the centred printable width in whole dots
  /// (576 on 80 mm and 384 on 58 mm at 203 dpi).
  public static func printableColumns(pageWidth: Int, setup: PageSetup) -> Range<Int> {
    let dots = (setup.paper.printableWidth.dots(at: setup.resolution) - 1e-9).clampedInt(.up, in: 0...1 << 40)
    let width = min(dots, pageWidth)
    let start = (pageWidth - width) / 2
    return start..<(start + width)
  }

  /// Renders every page (within ``checkBudget(_:pages:copies:)``).
  public func render(_ receipt: LaidOutReceipt) throws -> [RasterImage] {
    var images: [RasterImage] = []
    try render(receipt) { _, image in images.append(image) }
    return images
  }

  /// Renders `pages` (all when nil) one at a time, handing each to `body` before the next is
  /// drawn: one page's dots in memory at a time. Checks ``checkBudget(_:pages:copies:)`` first.
  public func render(
    _ receipt: LaidOutReceipt, pages: Range<Int>? = nil, _ body: (_ index: Int, _ image: RasterImage) throws -> Void
  ) throws {
    let pages = pages ?? receipt.pages.indices
    try checkBudget(receipt, pages: pages)
    let painter = CairoPainter()
    painter.runBitmaps = runBitmaps
    painter.antialias = gray
    painter.alphaTarget = true
    painter.isDocument = false
    for index in pages { try body(index, try render(receipt.pages[index], setup: receipt.pageSetup, painter: painter)) }
  }

  private func render(_ page: LaidOutPage, setup: PageSetup, painter: CairoPainter) throws -> RasterImage {
    let (width, height) = Self.size(of: page, setup: setup)
    let scale = Double(setup.resolution.dpi) / 72
    // A8 even for 1-bit pages: pixman's A8 path is fast, its A1 path clears large buffers per
    // operation; without anti-aliasing the coverage is exactly 0 or 255.
    let surface = try caches.pageBuffers.surface(width: width, height: height)
    let context = try CairoContext(surface)
    cairo_scale(context.pointer, scale, scale)
    try painter.paint(page, on: context.pointer, skip: Self.isDithered)
    let columns = imageColumns(pageWidth: width, setup: setup)
    var image = try Self.image(
      from: surface, columns: columns, height: height, gray: gray, buffers: caches.pageBuffers)
    for item in page.items where Self.isDithered(item) {
      try composite(item, into: &image, scale: scale, painter: painter, left: columns.lowerBound)
    }
    return image
  }

  /// Images and color glyph runs are drawn in gray and dithered, not painted as alpha.
  static func isDithered(_ item: LaidOutItem) -> Bool {
    switch item {
    case .image: return true
    case .glyphs(let run): return run.font.isColor
    case .rect, .barcode: return false
    }
  }

  /// Copies `columns` of an A8 surface (alpha = ink) into the canonical layout: gray 0 = black,
  /// or 1 bit per dot, MSB-first, packing eight alpha bytes at a time. 1-bit, with `buffers`
  /// (the surface's pool), it also clears what it reads inked — and the columns outside
  /// `columns` — so the surface's buffer comes back clear (``PageBuffers/swept(_:)``): nothing
  /// may draw on the surface after this.
  static func image(
    from surface: CairoSurface, columns: Range<Int>, height: Int, gray: Bool, buffers: PageBuffers? = nil
  ) throws -> RasterImage {
    let (pixels, stride) = try surface.pixels()
    let source = pixels + columns.lowerBound
    let width = columns.count
    // Swept only when every row of the surface is read here.
    let sweeping = buffers != nil && !gray && height == Int(cairo_image_surface_get_height(surface.pointer))
    let surfaceWidth = Int(cairo_image_surface_get_width(surface.pointer))
    defer { if sweeping { buffers?.swept(surface) } }
    var image = RasterImage(width: width, height: height, bitsPerPixel: gray ? 8 : 1)
    let bytes = image.bytesPerLine
    image.data.withUnsafeMutableBufferPointer { out in
      if gray {
        for y in 0..<height {
          for x in 0..<width { out[y * bytes + x] = 255 - source[y * stride + x] }
        }
        return
      }
      let whole = width / 8
      guard let base = out.baseAddress else { return }
      // Byte-swapped, pixel 0 is the top byte; the multiply gathers bit 7 of every byte into the
      // top byte with pixel 0 as its most significant bit (MSB-first, as PWG wants).
      func pack(_ v: UInt64) -> UInt8 {
        UInt8(truncatingIfNeeded: ((v.byteSwapped & 0x8080_8080_8080_8080) &* 0x0002_0408_1020_4081) >> 56)
      }
      for y in 0..<height {
        let row = UnsafeMutableRawPointer(source + y * stride)
        let line = base + y * bytes
        var j = 0
        // Most of a receipt is white paper: 32 dots are looked at at once, and skipped when
        // white (the output is already zero; swept, the page too).
        while j + 4 <= whole {
          let (a, b) = (
            row.loadUnaligned(fromByteOffset: 8 * j, as: UInt64.self),
            row.loadUnaligned(fromByteOffset: 8 * j + 8, as: UInt64.self)
          )
          let (c, d) = (
            row.loadUnaligned(fromByteOffset: 8 * j + 16, as: UInt64.self),
            row.loadUnaligned(fromByteOffset: 8 * j + 24, as: UInt64.self)
          )
          if a | b | c | d != 0 {
            (line[j], line[j + 1], line[j + 2], line[j + 3]) = (pack(a), pack(b), pack(c), pack(d))
            if sweeping {
              for k in 0..<4 { row.storeBytes(of: 0, toByteOffset: 8 * (j + k), as: UInt64.self) }
            }
          }
          j += 4
        }
        while j < whole {
          let v = row.loadUnaligned(fromByteOffset: 8 * j, as: UInt64.self)
          if v != 0 {
            line[j] = pack(v)
            if sweeping { row.storeBytes(of: 0, toByteOffset: 8 * j, as: UInt64.self) }
          }
          j += 1
        }
        if whole < bytes {
          var last: UInt8 = 0
          for x in (8 * whole)..<width where row.load(fromByteOffset: x, as: UInt8.self) >= 128 {
            last |= 0x80 >> UInt8(x & 7)
          }
          line[whole] = last
          if sweeping { Self.clearInked(row + 8 * whole, count: width - 8 * whole) }
        }
        if sweeping {
          // The columns outside the printable ones (a glyph may overhang into them).
          let full = UnsafeMutableRawPointer(pixels + y * stride)
          Self.clearInked(full, count: columns.lowerBound)
          Self.clearInked(full + columns.upperBound, count: surfaceWidth - columns.upperBound)
        }
      }
    }
    return image
  }

  /// Zeroes the inked bytes of `count` at `bytes`, eight at a time (a call to `memset` per row
  /// and margin cost more than the one clear of the whole page it replaces).
  private static func clearInked(_ bytes: UnsafeMutableRawPointer, count: Int) {
    var i = 0
    while i + 8 <= count {
      if bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self) != 0 {
        bytes.storeBytes(of: 0, toByteOffset: i, as: UInt64.self)
      }
      i += 8
    }
    while i < count {
      if bytes.load(fromByteOffset: i, as: UInt8.self) != 0 { bytes.storeBytes(of: 0, toByteOffset: i, as: UInt8.self) }
      i += 1
    }
  }
}
