import Foundation
import ReceiptLayout
@_spi(Internals) import ReceiptModel

/// The dots of images already drawn and dithered, by everything that decides them: the same logo
/// at the same size, sub-dot position and dither on every receipt of a batch (or of a daemon's
/// day) is scaled and dithered once. Bounded: at most ``capacity`` images of at most
/// ``maximumDots`` dots each; when full it starts again empty.
final class ImageDotCache: Sendable {
  /// What decides an image's dots exactly (the sub-dot phase as the exact offsets cairo draws at).
  struct Key: Hashable, Sendable {
    var image: GrayImage
    var width: Int
    var height: Int
    var phaseX: Double
    var phaseY: Double
    var scale: Double
    var dither: DitherMethod
    var gray: Bool
  }

  /// An image's dots: gray levels (8-bit pages) or black dots (1-bit pages), row by row.
  enum Dots: Sendable {
    case gray([UInt8])
    case black([Bool])
  }

  static let capacity = 32
  static let maximumDots = 4_000_000

  private let entries = Locked<[Key: Dots]>([:])

  /// The cached dots for `key`, or nil.
  func dots(for key: Key) -> Dots? {
    entries.withLock { $0[key] }
  }

  /// Keeps `dots` for `key` if it is small enough.
  func store(_ dots: Dots, for key: Key) {
    guard key.width * key.height <= Self.maximumDots else { return }
    entries.withLock { entries in
      if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
      entries[key] = dots
    }
  }
}

extension ImageDotCache {
  /// Forgets every image (tests compare cached dots with fresh ones).
  package func removeAll() {
    entries.withLock { $0.removeAll() }
  }

  /// How many images are kept.
  package var count: Int { entries.withLock { $0.count } }
}
