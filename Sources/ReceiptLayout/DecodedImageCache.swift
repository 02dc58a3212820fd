import Foundation
@_spi(Internals) import ReceiptModel

/// Images already decoded, by their file's bytes: the same logo on every receipt of a batch (or
/// of a daemon's day) is decoded once, and every receipt then shares one ``GrayImage`` — whose
/// pixels compare equal by identity, so the dot cache downstream finds it at once.
///
/// Bounded: at most ``capacity`` images of at most ``maximumPixels`` pixels each; when full it
/// starts again empty. Failed decodes are not kept (a broken image reports its error every time).
final class DecodedImageCache: Sendable {
  static let capacity = 16
  static let maximumPixels = 1 << 20

  private let images = Locked<[Data: GrayImage]>([:])

  /// The decoded image of `data`, decoding it (bounded: see ``ImageDecoder``) when not kept.
  func image(_ data: Data) throws -> GrayImage {
    if let kept = images.withLock({ $0[data] }) { return kept }
    let image = try ImageDecoder.decode(data)
    guard image.width * image.height <= Self.maximumPixels else { return image }
    images.withLock { images in
      if images.count >= Self.capacity { images.removeAll(keepingCapacity: true) }
      images[data] = image
    }
    return image
  }

  /// How many images are kept.
  package var count: Int { images.withLock { $0.count } }
}
