import Foundation
import ReceiptModel

extension BlockLayouter {
  /// Largest accepted image, in pixels per side.
  static let maxImagePixels = 8192

  /// The printed size of an image: its pixels as printer dots (or the requested width), capped at
  /// `maxWidth`, in whole dots.
  func imageSize(_ image: ImageBlock, maxWidth: Double) throws -> (width: Double, height: Double, pixels: (Int, Int)) {
    let (w, h) = try ImageHeader.size(of: image.data)
    let dot = 72 / Double(setup.resolution.dpi)
    var width = image.width?.points ?? Double(w) * dot
    width = min(width, maxWidth)
    let dotsWide = max(1, (width / dot).rounded(.down))
    let dotsHigh = max(1, (dotsWide * Double(h) / Double(w)).rounded())
    return (dotsWide * dot, dotsHigh * dot, (w, h))
  }

  mutating func placeImage(_ image: ImageBlock, x: Double, width: Double, alignment: TextAlignment?) throws {
    let size = try imageSize(image, maxWidth: width)
    let dot = 72 / Double(setup.resolution.dpi)
    let left = ((x + offset(for: alignment ?? image.alignment, content: size.width, in: width)) / dot).rounded() * dot
    let top = snapDown(y)
    items.append(
      .image(
        PlacedImage(
          rect: Rect(x: left, y: top, width: size.width, height: size.height), pixelWidth: size.pixels.0,
          pixelHeight: size.pixels.1, data: image.data, dither: image.dither)))
    y = top + size.height
  }
}

/// Reads an image's pixel size from its PNG or JPEG header, without decoding it.
enum ImageHeader {
  static func size(of data: Data) throws -> (Int, Int) {
    let b = [UInt8](data.prefix(1 << 20))
    func u16(_ o: Int) -> Int { Int(b[o]) << 8 | Int(b[o + 1]) }
    func u32(_ o: Int) -> Int { u16(o) << 16 | u16(o + 2) }
    var size: (Int, Int)?
    if b.count >= 24, b.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
      size = (u32(16), u32(20))
    } else if b.count >= 4, b[0] == 0xFF, b[1] == 0xD8 {
      var o = 2
      while o + 9 < b.count, b[o] == 0xFF {
        let marker = b[o + 1]
        if (0xC0...0xCF).contains(marker), marker != 0xC4, marker != 0xC8, marker != 0xCC {
          size = (u16(o + 7), u16(o + 5))
          break
        }
        o += 2 + u16(o + 2)
      }
    } else {
      throw LayoutError.image("not a PNG or JPEG file")
    }
    guard let (w, h) = size, w > 0, h > 0 else { throw LayoutError.image("corrupt image header") }
    guard w <= BlockLayouter.maxImagePixels, h <= BlockLayouter.maxImagePixels else {
      throw LayoutError.image("\(w)×\(h) pixels is too large (at most \(BlockLayouter.maxImagePixels) per side)")
    }
    return (w, h)
  }
}
