internal import CCups
import Foundation
import ReceiptLayout

/// Reads PWG Raster and Apple Raster (URF) documents with libcups' raster reader
/// (`cupsRasterOpenIO`, `cupsRasterReadHeader2`, `cupsRasterReadPixels`, which decompress both),
/// into gray pages. Each page's header is checked against the bounds before its pixels are read.
enum RasterDocumentReader {
  static func read(_ data: Data, options: DocumentReadOptions) throws -> [DocumentPage] {
    try LibCUPS.load()
    let source = ByteReader(data)
    guard
      let raster = LibCUPS.cupsRasterOpenIO(
        { context, buffer, length in
          guard let context, let buffer else { return -1 }
          return Unmanaged<ByteReader>.fromOpaque(context).takeUnretainedValue().readAvailable(
            into: buffer, count: length)
        }, Unmanaged.passUnretained(source).toOpaque(), CUPS_RASTER_READ)
    else { throw PrintError.document("the raster document cannot be opened (libcups: \(LibCUPS.lastErrorMessage))") }
    defer { LibCUPS.cupsRasterClose(raster) }
    var pages: [DocumentPage] = []
    var header = cups_page_header2_t()
    var number = 0
    var pixels = 0
    while LibCUPS.cupsRasterReadHeader2(raster, &header) != 0 {
      number += 1
      let page = try Layout(header, page: number)
      guard number <= DocumentPages.maxPages else {
        throw PrintError.document("the raster document has over \(DocumentPages.maxPages) pages")
      }
      let wanted = options.includes(page: number)
      if wanted { pixels += page.width * page.height }
      guard pixels <= DocumentPages.maxPixels else {
        throw PrintError.document(
          "the raster document is over \(DocumentPages.maxPixels >> 20) million pixels to print")
      }
      // One row of the header's bytes at a time, turned into gray as it comes: a page's raw
      // bytes (up to 1 GiB) are never held, only its gray pixels when it is printed.
      var gray = wanted ? [UInt8](repeating: 255, count: page.width * page.height) : []
      var row = [UInt8](repeating: 0, count: page.bytesPerLine)
      for y in 0..<page.height {
        let read = row.withUnsafeMutableBufferPointer {
          LibCUPS.cupsRasterReadPixels(raster, $0.baseAddress, UInt32($0.count))
        }
        guard read == UInt32(row.count) else {
          throw PrintError.document("page \(number) of the raster document is truncated (row \(y + 1))")
        }
        if wanted { page.gray(row, into: &gray, at: y * page.width) }
      }
      guard wanted else { continue }
      pages.append(
        DocumentPage(
          image: GrayImage(width: page.width, height: page.height, pixels: gray),
          width: Double(page.width) * 72 / Double(page.xResolution),
          length: Double(page.height) * 72 / Double(page.yResolution), isBilevel: page.bitsPerPixel == 1))
    }
    guard number > 0 else {
      throw PrintError.document("the raster document has no page (libcups: \(LibCUPS.lastErrorMessage))")
    }
    return pages
  }

  /// A page's pixel layout, as its header gives it, checked.
  struct Layout {
    var width: Int
    var height: Int
    var bitsPerPixel: Int
    var bitsPerColor: Int
    var bytesPerLine: Int
    var colors: Int
    /// Whether 0 is white (K and CMYK spaces) rather than black (gray and RGB).
    var inkSpace: Bool
    var xResolution: Int
    var yResolution: Int

    init(_ h: cups_page_header2_t, page: Int) throws {
      width = Int(h.cupsWidth)
      height = Int(h.cupsHeight)
      bitsPerPixel = Int(h.cupsBitsPerPixel)
      bitsPerColor = Int(h.cupsBitsPerColor)
      bytesPerLine = Int(h.cupsBytesPerLine)
      xResolution = Int(h.HWResolution.0)
      yResolution = Int(h.HWResolution.1)
      func fail(_ why: String) -> PrintError { .document("page \(page) of the raster document: \(why)") }
      switch h.cupsColorSpace {
      case CUPS_CSPACE_W, CUPS_CSPACE_SW:
        (colors, inkSpace) = (1, false)
      case CUPS_CSPACE_K:
        (colors, inkSpace) = (1, true)
      case CUPS_CSPACE_RGB, CUPS_CSPACE_SRGB, CUPS_CSPACE_ADOBERGB:
        (colors, inkSpace) = (3, false)
      case CUPS_CSPACE_CMYK:
        (colors, inkSpace) = (4, true)
      default:
        throw fail("color space \(h.cupsColorSpace.rawValue) is not gray, black, RGB or CMYK")
      }
      guard h.cupsColorOrder == CUPS_ORDER_CHUNKED else { throw fail("only chunked (interleaved) pixels are read") }
      guard (1...16_384).contains(width), (1...65_536).contains(height) else {
        throw fail("\(width) × \(height) pixels is outside 1…16,384 wide and 1…65,536 long")
      }
      guard (72...2400).contains(xResolution), (72...2400).contains(yResolution) else {
        throw fail("resolution \(xResolution)×\(yResolution) dpi is outside 72…2400")
      }
      let valid =
        (bitsPerColor == 1 && colors == 1 && bitsPerPixel == 1)
        || ([8, 16].contains(bitsPerColor) && bitsPerPixel == bitsPerColor * colors)
      guard valid, bytesPerLine == (width * bitsPerPixel + 7) / 8 else {
        throw fail("\(bitsPerColor) bits per color in \(bitsPerPixel) bits per pixel is not a layout receipt reads")
      }
      guard bytesPerLine * height <= DocumentPages.maxPageBytes else {
        throw fail(
          "\(width) × \(height) pixels of \(bitsPerPixel) bits come to \((bytesPerLine * height) >> 20) MiB; "
            + "a page may be at most \(DocumentPages.maxPageBytes >> 20) MiB")
      }
    }

    /// One row of raw pixels (`bytes`) as gray bytes (0 = black), written into `gray` at `start`.
    func gray(_ bytes: [UInt8], into gray: inout [UInt8], at start: Int) {
      let sample = bitsPerColor / 8  // bytes per color sample (16-bit: the big-endian high byte first)
      for x in 0..<width {
        let value: Int
        if bitsPerPixel == 1 {
          let bit = Int(bytes[x >> 3] >> (7 - UInt8(x & 7)) & 1)
          value = inkSpace ? (bit == 1 ? 0 : 255) : (bit == 1 ? 255 : 0)
        } else {
          let p = x * colors * sample
          func c(_ i: Int) -> Int { Int(bytes[p + i * sample]) }
          switch colors {
          case 1: value = inkSpace ? 255 - c(0) : c(0)
          case 3: value = (299 * c(0) + 587 * c(1) + 114 * c(2)) / 1000
          default: value = max(0, 255 - (299 * c(0) + 587 * c(1) + 114 * c(2)) / 1000 - c(3))
          }
        }
        gray[start + x] = UInt8(value)
      }
    }
  }
}
