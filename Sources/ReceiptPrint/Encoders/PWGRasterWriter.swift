internal import CCups
public import Foundation
public import ReceiptModel
package import ReceiptRender

/// Writes PWG raster (PWG 5102.4, for IPP Everywhere) or CUPS raster (for driver queues) through
/// libcups' raster stream API. The header comes from `cupsRasterInitPWGHeader` for the exact
/// media size, and its width and height must equal the page's dots.
public struct PWGRasterWriter: Sendable {
  /// The stream flavour.
  public enum Mode: Sendable {
    /// PWG raster (`application/vnd.pwg-raster`).
    case pwg
    /// CUPS raster v3 (`application/vnd.cups-raster`).
    case cups
  }
  public var mode: Mode

  /// Creates a writer.
  public init(mode: Mode = .pwg) {
    self.mode = mode
  }

  /// The media length in 1/100 mm for a height in dots: ceil(dots × 2540 / dpi), so that libcups'
  /// floor(length × dpi / 2540) gives the dots back exactly.
  public static func mediaLength(dots: Int, dpi: Int) -> Int { (dots * 2540 + dpi - 1) / dpi }

  /// Encodes pages of one receipt.
  package func encode(_ pages: [RasterImage], setup: PageSetup) throws -> Data {
    try LibCUPS.load()
    let sink = ByteSink()
    let raster = LibCUPS.cupsRasterOpenIO(
      { context, buffer, length in
        guard let context, let buffer else { return -1 }
        Unmanaged<ByteSink>.fromOpaque(context).takeUnretainedValue().append(buffer, count: length)
        return length
      }, Unmanaged.passUnretained(sink).toOpaque(), mode == .pwg ? CUPS_RASTER_WRITE_PWG : CUPS_RASTER_WRITE)
    guard let raster else { throw PrintError.encoding("libcups cannot open a raster stream") }
    do {
      try write(pages, to: raster, setup: setup)
    } catch {
      LibCUPS.cupsRasterClose(raster)
      throw error
    }
    LibCUPS.cupsRasterClose(raster)  // flushes the stream into the sink
    return withExtendedLifetime(sink) { sink.data }
  }

  private func write(_ pages: [RasterImage], to raster: OpaquePointer, setup: PageSetup) throws {
    let dpi = setup.resolution.dpi
    let width = Int32(clamping: (setup.paper.width.millimetres * 100).clampedInt())
    for page in pages {
      let length = Int32(Self.mediaLength(dots: page.height, dpi: dpi))
      guard let media = LibCUPS.pwgMediaForSize(width, length) else {
        throw PrintError.encoding("libcups has no media for \(width)×\(length) (1/100 mm)")
      }
      var header = cups_page_header2_t()
      let type = page.bitsPerPixel == 1 ? "black_1" : "sgray_8"
      guard LibCUPS.cupsRasterInitPWGHeader(&header, media, type, Int32(dpi), Int32(dpi), "one-sided", nil) != 0 else {
        throw PrintError.encoding("libcups rejected the raster header: \(LibCUPS.lastErrorMessage)")
      }
      guard Int(header.cupsWidth) == page.width, Int(header.cupsHeight) == page.height else {
        throw PrintError.encoding(
          "raster header is \(header.cupsWidth)×\(header.cupsHeight) dots but the page is \(page.width)×\(page.height)")
      }
      header.cupsInteger.0 = UInt32(pages.count)  // PWG TotalPageCount
      header.cupsInteger.1 = 1  // CrossFeedTransform
      header.cupsInteger.2 = 1  // FeedTransform
      guard LibCUPS.cupsRasterWriteHeader2(raster, &header) != 0 else {
        throw PrintError.encoding("libcups cannot write a header")
      }
      // libcups takes a non-const pointer but only reads the pixels: no copy of the page.
      let written = page.data.withUnsafeBufferPointer {
        LibCUPS.cupsRasterWritePixels(raster, UnsafeMutablePointer(mutating: $0.baseAddress), UInt32($0.count))
      }
      guard written == UInt32(page.data.count) else {
        throw PrintError.encoding("libcups wrote \(written) of \(page.data.count) bytes")
      }
    }
  }
}
