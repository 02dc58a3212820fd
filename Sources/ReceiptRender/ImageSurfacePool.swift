internal import CCairo
import ReceiptLayout
@_spi(Internals) import ReceiptModel

/// The cairo surfaces of the images PDFs draw, kept between renders: a logo becomes a cairo image
/// once a process instead of once a receipt, and cairo's snapshot of it is not copied when the
/// surface is let go (a source destroyed while a document's recording holds a snapshot of it is
/// copied first). 2.2 % of a PDF receipt's instructions with the shipped logo.
///
/// A surface is lent to one render at a time and given back only after that render's PDF surface
/// is destroyed: cairo attaches its snapshots to the source surface itself, without a lock, so
/// two documents must never hold one surface at once. Bounded: at most ``maximumBytes`` of
/// pixels are kept; beyond that a surface given back is let go.
final class ImageSurfacePool: Sendable {
  /// A kept surface and the image it holds (kept too: its pixels are the key's).
  struct Kept: @unchecked Sendable {  // a surface is used by one render at a time (see above)
    var image: GrayImage
    var surface: CairoSurface
    var bytes: Int { image.width * image.height * 4 }
  }

  /// The most pixel bytes kept (RGB24: four a pixel); the shipped logo is 92 KB.
  static let maximumBytes = 16 << 20

  private let free = Locked<(surfaces: [GrayImage: [Kept]], bytes: Int)>(([:], 0))

  /// A surface holding `image`: a kept one if one is free, else a new one.
  func lend(_ image: GrayImage) throws -> Kept {
    let kept = free.withLock { free -> Kept? in
      guard let kept = free.surfaces[image]?.popLast() else { return nil }
      free.bytes -= kept.bytes
      return kept
    }
    return try kept ?? Kept(image: image, surface: CairoPainter.surface(image))
  }

  /// Takes surfaces back once the document that drew them is destroyed.
  func giveBack(_ surfaces: [Kept]) {
    free.withLock { free in
      for kept in surfaces where free.bytes + kept.bytes <= Self.maximumBytes {
        free.surfaces[kept.image, default: []].append(kept)
        free.bytes += kept.bytes
      }
    }
  }

  /// How many surfaces are kept (tests).
  var count: Int { free.withLock { $0.surfaces.values.reduce(0) { $0 + $1.count } } }
}

/// The surfaces one PDF render borrowed, given back when it is done; an image drawn twice in the
/// document is one surface (and so one image object in the PDF).
final class LentImageSurfaces {
  private let pool: ImageSurfacePool
  private var lent: [GrayImage: ImageSurfacePool.Kept] = [:]

  init(from pool: ImageSurfacePool) { self.pool = pool }

  /// The surface for `image` in this document.
  func surface(for image: GrayImage) throws -> CairoSurface {
    if let kept = lent[image] { return kept.surface }
    let kept = try pool.lend(image)
    lent[image] = kept
    return kept.surface
  }

  /// Gives every surface back. Call only after the document's cairo surface is destroyed.
  func giveBack() {
    pool.giveBack(Array(lent.values))
    lent.removeAll()
  }
}
