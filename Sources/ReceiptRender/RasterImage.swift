/// A page as printer dots: 1 bit per pixel (MSB-first, 1 = black: PWG `black_1`) or 8 bits per
/// pixel (0 = black: PWG `sgray_8`). Rows are `bytesPerLine` bytes, no padding.
public struct RasterImage: Hashable, Sendable {
  public let width: Int
  public let height: Int
  /// 1 or 8.
  public let bitsPerPixel: Int
  public var data: [UInt8]

  /// Creates a blank (white) image.
  public init(width: Int, height: Int, bitsPerPixel: Int) {
    precondition(bitsPerPixel == 1 || bitsPerPixel == 8)
    self.width = width
    self.height = height
    self.bitsPerPixel = bitsPerPixel
    let bytes = bitsPerPixel == 1 ? (width + 7) / 8 : width
    data = [UInt8](repeating: bitsPerPixel == 1 ? 0 : 255, count: bytes * height)
  }

  /// Creates an image from rows in this layout.
  public init(width: Int, height: Int, bitsPerPixel: Int, data: [UInt8]) {
    precondition(data.count == (bitsPerPixel == 1 ? (width + 7) / 8 : width) * height)
    self.width = width
    self.height = height
    self.bitsPerPixel = bitsPerPixel
    self.data = data
  }

  /// Bytes per row.
  public var bytesPerLine: Int { bitsPerPixel == 1 ? (width + 7) / 8 : width }

  /// Whether a dot prints (black, or darker than mid-gray for 8-bit images).
  public func isBlack(x: Int, y: Int) -> Bool {
    if bitsPerPixel == 1 { return data[y * bytesPerLine + x >> 3] & (0x80 >> UInt8(x & 7)) != 0 }
    return data[y * bytesPerLine + x] < 128
  }

  /// The columns `x ..< x + width` as a new image (used for the printable area of a page).
  public func cropped(x: Int, width: Int) -> RasterImage {
    precondition(x >= 0 && x + width <= self.width, "crop outside the image")
    // Already the window, with no padding bits to clear (the printable 576 or 384 columns).
    if x == 0, width == self.width, width % 8 == 0 || bitsPerPixel == 8 { return self }
    var out = RasterImage(width: width, height: height, bitsPerPixel: bitsPerPixel)
    let outBytes = out.bytesPerLine
    if bitsPerPixel == 8 {
      for y in 0..<height {
        out.data[(y * outBytes)..<((y + 1) * outBytes)] = data[(y * bytesPerLine + x)..<(y * bytesPerLine + x + width)]
      }
      return out
    }
    let shift = UInt8(x & 7)
    let tailMask: UInt8 = width % 8 == 0 ? 0xFF : ~(0xFF >> UInt8(width % 8))
    let lineBytes = bytesPerLine
    // Whole lines of bytes at a time (an ESC/POS batch crops every page).
    data.withUnsafeBufferPointer { source in
      out.data.withUnsafeMutableBufferPointer { target in
        for y in 0..<height {
          let from = y * lineBytes + x >> 3
          let end = (y + 1) * lineBytes
          let to = y * outBytes
          if shift == 0, let base = target.baseAddress, let start = source.baseAddress {
            // On a byte boundary: one copy per line.
            (base + to).update(from: start + from, count: outBytes)
            target[to + outBytes - 1] &= tailMask
            continue
          }
          // Eight bytes at a time while nine source bytes remain in the line, then byte by byte.
          var k = 0
          if let start = source.baseAddress, let base = target.baseAddress {
            let wide = UInt64(shift)
            while k + 8 <= outBytes, from + k + 8 < end {
              let v = UInt64(bigEndian: UnsafeRawPointer(start + from + k).loadUnaligned(as: UInt64.self))
              let w = v << wide | UInt64(start[from + k + 8]) >> (8 - wide)
              UnsafeMutableRawPointer(base + to + k).storeBytes(of: w.bigEndian, as: UInt64.self)
              k += 8
            }
          }
          for k in k..<outBytes {
            let hi = source[from + k] << shift
            let lo = shift > 0 && from + k + 1 < end ? source[from + k + 1] >> (8 - shift) : 0
            target[to + k] = hi | lo
          }
          target[to + outBytes - 1] &= tailMask
        }
      }
    }
    return out
  }

  /// The number of black dots.
  public var blackCount: Int {
    var n = 0
    for y in 0..<height { for x in 0..<width where isBlack(x: x, y: y) { n += 1 } }
    return n
  }
}
