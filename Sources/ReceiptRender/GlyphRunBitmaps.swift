internal import CCairo
import Foundation
import ReceiptLayout
@_spi(Internals) import ReceiptModel

/// The coverage of glyph runs drawn before, kept for raster pages: a receipt's labels, header,
/// footer and menu lines come back receipt after receipt, and cairo composites a run glyph by
/// glyph (a few dozen bytes a row each, under a process-wide lock), where a kept run is one
/// composite of a rectangle.
///
/// Exact, not approximate: on an alpha raster black ink is a saturating addition of coverage,
/// and cairo 1.16's image compositor places each glyph's mask at its device position rounded
/// to a whole dot (`_cairo_lround`, i.e. ⌊x + ½⌋) — its masks do not depend on where the glyph
/// falls within a dot. So a run's coverage drawn once at whole-dot offsets and added where the
/// run's first glyph rounds to gives the dots cairo would (a saturating sum is the same in any
/// grouping). A run is kept the third time it is seen (``keptAtSighting``), with its whole ink
/// (a run whose ink touches the edge of the rectangle it was drawn in is never kept). Bounded:
/// at most ``maxBytes`` of coverage and ``maxRuns`` runs; when full it keeps the runs seen
/// again since it last filled and lets go of the others (an order's number), see ``KeptTable``.
/// Runs are spread over ``shardCount`` tables by hash, each under its own lock with its share
/// of the bounds: every run of every page is looked up here, and two workers taking one lock
/// for each waited on each other (futex waits and wake-ups were 1.5 % of a batch's time).
final class GlyphRunBitmaps: Sendable {
  static let maxBytes = 8 << 20
  static let maxRuns = 8192
  /// A run is kept the time it is seen this often: drawing a run apart and keeping it costs
  /// about what drawing it three times does, which a one-shot process seeing a run twice in a
  /// receipt would pay for nothing.
  static let keptAtSighting = 3
  /// Tables, each with its own lock and 1/`shardCount` of ``maxBytes`` and ``maxRuns``.
  static let shardCount = 16

  /// What decides a run's coverage: its font (cairo's face, made once per process) at its size
  /// on the page's scale, and each glyph with its offset in whole dots from the first. Hashed
  /// once, as it is made: a run is looked up once a page.
  struct Key: Hashable {
    let face: UInt
    let size: Double
    let horizontalScale: Double
    let verticalScale: Double
    let xx: Double
    let yy: Double
    let antialias: Bool
    /// Glyph index and offset in dots (x, y) from the first glyph's dot.
    let glyphs: [SIMD3<Int32>]
    private let hash: Int
    /// Which table keeps the run.
    var shard: Int { Int(UInt(bitPattern: hash) % UInt(GlyphRunBitmaps.shardCount)) }

    init(
      face: UInt, size: Double, horizontalScale: Double, verticalScale: Double, xx: Double, yy: Double,
      antialias: Bool, glyphs: [SIMD3<Int32>]
    ) {
      (self.face, self.size, self.horizontalScale, self.verticalScale) = (face, size, horizontalScale, verticalScale)
      (self.xx, self.yy, self.antialias, self.glyphs) = (xx, yy, antialias, glyphs)
      // FNV-1a over the glyphs and the face; the rest rarely differs between runs of a page.
      var h: UInt64 = 0xcbf2_9ce4_8422_2325
      func mix(_ v: UInt64) { h = (h ^ v) &* 0x100_0000_01b3 }
      mix(UInt64(face))
      // Offsets are negative too (a mark above its base, a run rising from its first glyph).
      for g in glyphs {
        mix(UInt64(UInt32(bitPattern: g.x)) | UInt64(UInt32(bitPattern: g.y)) << 32 ^ UInt64(UInt32(bitPattern: g.z)))
      }
      hash = Int(truncatingIfNeeded: h)
    }

    func hash(into hasher: inout Hasher) { hasher.combine(hash) }
  }

  /// A run's coverage: A8 rows, and where its top-left dot is from the first glyph's dot.
  final class Bitmap: @unchecked Sendable {
    // @unchecked: the pixels are written once, before the bitmap is shared, and only read after.
    let pixels: UnsafeMutableRawPointer
    let width: Int
    let height: Int
    let stride: Int
    let left: Int
    let top: Int

    init(width: Int, height: Int, stride: Int, left: Int, top: Int) {
      pixels = .allocate(byteCount: stride * height, alignment: 16)
      (self.width, self.height, self.stride, self.left, self.top) = (width, height, stride, left, top)
    }

    deinit { pixels.deallocate() }
  }

  private enum Slot {
    /// Seen this many times, drawn glyph by glyph each time.
    case seen(Int)
    case kept(Bitmap)
    /// No ink, or ink reaching past the rectangle it is drawn in: always drawn glyph by glyph.
    case refused
  }

  private struct State {
    var slots = KeptTable<Key, Slot>(capacity: maxRuns / shardCount)
    var bytes = 0
  }

  private let shards = (0..<shardCount).map { _ in Locked(State()) }
  private static let shardBytes = maxBytes / shardCount

  /// The kept coverage of a run; nil when it is drawn glyph by glyph, and then `shouldKeep` says
  /// whether the caller should make its bitmap (``keep(_:for:)``) — the ``keptAtSighting``th
  /// time it is seen.
  func bitmap(for key: Key) -> (bitmap: Bitmap?, shouldKeep: Bool) {
    shards[key.shard].withLock { state in
      switch state.slots.value(for: key) {
      case .kept(let bitmap)?: return (bitmap, false)
      case .seen(let times)?:
        if times + 1 >= Self.keptAtSighting { return (nil, true) }
        state.slots.update(key) { $0 = .seen(times + 1) }
        return (nil, false)
      case .refused?: return (nil, false)
      case nil:
        if state.slots.keep(.seen(1), for: key) { state.bytes = Self.bytes(of: state.slots) }
        return (nil, Self.keptAtSighting <= 1)
      }
    }
  }

  /// Keeps a run's coverage (nil: the run is never kept).
  func keep(_ bitmap: Bitmap?, for key: Key) {
    shards[key.shard].withLock { state in
      guard let bitmap else {
        state.slots.keep(.refused, for: key)
        return
      }
      if case .kept? = state.slots.value(for: key) { return }  // another worker kept it meanwhile
      let bytes = bitmap.stride * bitmap.height
      // A run of huge type is drawn glyph by glyph: kept, it would take a table's share alone.
      guard bytes <= Self.shardBytes / 2 else {
        state.slots.keep(.refused, for: key)
        return
      }
      if state.bytes + bytes > Self.shardBytes {
        state.slots.makeRoom()
        state.bytes = Self.bytes(of: state.slots)
        if state.bytes + bytes > Self.shardBytes / 2 {
          state.slots.removeAll()
          state.bytes = 0
        }
      }
      // In place of its sighting count (or anew, when room made since let go of it).
      if state.slots.keep(.kept(bitmap), for: key) {
        state.bytes = Self.bytes(of: state.slots)
      } else {
        state.bytes += bytes
      }
    }
  }

  /// The coverage bytes kept in `slots`.
  private static func bytes(of slots: KeptTable<Key, Slot>) -> Int {
    slots.values.reduce(0) { total, slot in
      if case .kept(let b) = slot { return total + b.stride * b.height }
      return total
    }
  }

  /// How many runs are kept with their coverage.
  var keptCount: Int {
    shards.reduce(0) { count, shard in
      count + shard.withLock { $0.slots.values.reduce(0) { if case .kept = $1 { $0 + 1 } else { $0 } } }
    }
  }
}
