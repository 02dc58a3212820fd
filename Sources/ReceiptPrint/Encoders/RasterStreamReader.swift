internal import CCups
public import Foundation
package import ReceiptRender

/// (Package access: a test tool, not API.) Reads PWG or CUPS raster back with libcups' raster reader (`cupsRasterReadHeader2` and
/// `cupsRasterReadPixels`): what a printer or filter would see. Used to verify our output.
package enum RasterStreamReader {
  /// The page header fields receipt cares about.
  package struct Header: Equatable, Sendable {
    package var width: Int
    package var height: Int
    package var bitsPerPixel: Int
    package var bytesPerLine: Int
    /// Dots per inch, horizontal and vertical.
    package var resolution: (x: Int, y: Int)
    /// PageSize in points (width, length).
    package var pageSize: (width: Int, length: Int)
    /// PWG TotalPageCount (cupsInteger[0]).
    package var totalPageCount: Int
    /// cups_cspace_t value: 3 = K (1 = black), 18 = sW (0 = black).
    package var colorSpace: Int

    package static func == (a: Header, b: Header) -> Bool {
      a.width == b.width && a.height == b.height && a.bitsPerPixel == b.bitsPerPixel
        && a.bytesPerLine == b.bytesPerLine && a.resolution == b.resolution && a.pageSize == b.pageSize
        && a.totalPageCount == b.totalPageCount && a.colorSpace == b.colorSpace
    }
  }

  /// Reads every page of a raster stream.
  package static func read(_ data: Data) throws -> [(header: Header, image: RasterImage)] {
    try LibCUPS.load()
    let source = ByteReader(data)
    guard
      let raster = LibCUPS.cupsRasterOpenIO(
        { context, buffer, length in
          guard let context, let buffer else { return -1 }
          return Unmanaged<ByteReader>.fromOpaque(context).takeUnretainedValue().readAvailable(
            into: buffer, count: length)
        }, Unmanaged.passUnretained(source).toOpaque(), CUPS_RASTER_READ)
    else { throw PrintError.encoding("libcups cannot open the raster stream") }
    defer { LibCUPS.cupsRasterClose(raster) }
    var pages: [(Header, RasterImage)] = []
    var h = cups_page_header2_t()
    while LibCUPS.cupsRasterReadHeader2(raster, &h) != 0 {
      let header = Header(
        width: Int(h.cupsWidth), height: Int(h.cupsHeight), bitsPerPixel: Int(h.cupsBitsPerPixel),
        bytesPerLine: Int(h.cupsBytesPerLine), resolution: (Int(h.HWResolution.0), Int(h.HWResolution.1)),
        pageSize: (Int(h.PageSize.0), Int(h.PageSize.1)), totalPageCount: Int(h.cupsInteger.0),
        colorSpace: Int(h.cupsColorSpace.rawValue))
      var bytes = [UInt8](repeating: 0, count: header.bytesPerLine * header.height)
      let read = bytes.withUnsafeMutableBufferPointer {
        LibCUPS.cupsRasterReadPixels(raster, $0.baseAddress, UInt32($0.count))
      }
      guard read == UInt32(bytes.count), header.bitsPerPixel == 1 || header.bitsPerPixel == 8 else {
        throw PrintError.encoding("raster page is truncated or not 1/8-bit gray")
      }
      pages.append(
        (
          header,
          RasterImage(width: header.width, height: header.height, bitsPerPixel: header.bitsPerPixel, data: bytes)
        ))
    }
    return pages
  }
}

extension ByteReader {
  /// Copies up to `count` bytes; returns how many (0 at the end).
  func readAvailable(into buffer: UnsafeMutablePointer<UInt8>, count: Int) -> Int {
    let n = min(count, remaining)
    if n > 0 { _ = read(into: buffer, count: n) }
    return n
  }
}
