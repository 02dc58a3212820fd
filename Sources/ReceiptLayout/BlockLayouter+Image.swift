import Foundation
import ReceiptModel

extension BlockLayouter {
  /// Most decoded image pixels in one receipt (64 MiB of gray).
  static let maxImagePixelsPerReceipt = 1 << 26

  /// The printed size of a decoded image: its pixels as printer dots (or the requested width),
  /// capped at `maxWidth`, in whole dots.
  func imageSize(_ image: ImageBlock, pixels: GrayImage, maxWidth: Double) -> (width: Double, height: Double) {
    imageSize(image, pixelWidth: pixels.width, pixelHeight: pixels.height, maxWidth: maxWidth)
  }

  /// The natural printed width of an image (for auto cells), from its header alone.
  func naturalImageWidth(_ image: ImageBlock) throws -> Double {
    let (w, h) = try ImageDecoder.size(of: image.data)
    return imageSize(image, pixelWidth: w, pixelHeight: h, maxWidth: .greatestFiniteMagnitude).width
  }

  private func imageSize(_ image: ImageBlock, pixelWidth w: Int, pixelHeight h: Int, maxWidth: Double) -> (
    width: Double, height: Double
  ) {
    let dot = 72 / Double(setup.resolution.dpi)
    var width = image.width?.points ?? Double(w) * dot
    width = min(width, maxWidth)
    let dotsWide = max(1, (width / dot).rounded(.down))
    let dotsHigh = max(1, (dotsWide * Double(h) / Double(w)).rounded())
    return (dotsWide * dot, dotsHigh * dot)
  }

  /// Decodes the image (bounded: see ``ImageDecoder``) and places it on whole dots.
  mutating func placeImage(_ image: ImageBlock, x: Double, width: Double, alignment: TextAlignment?) throws {
    let pixels = try images.image(image.data)
    decodedPixels += pixels.width * pixels.height
    guard decodedPixels <= Self.maxImagePixelsPerReceipt else {
      throw LayoutError.image(
        "the receipt's images have more than \(Self.maxImagePixelsPerReceipt / 1_048_576) megapixels in all; use fewer or smaller images"
      )
    }
    let size = imageSize(image, pixels: pixels, maxWidth: width)
    let dot = 72 / Double(setup.resolution.dpi)
    let left = ((x + offset(for: alignment ?? image.alignment, content: size.width, in: width)) / dot).rounded() * dot
    let top = snapDown(y)
    items.append(
      .image(
        PlacedImage(
          rect: Rect(x: left, y: top, width: size.width, height: size.height), image: pixels, dither: image.dither)))
    y = top + size.height
  }
}
