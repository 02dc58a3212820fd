internal import CCairo
import Foundation
@_spi(Internals) import ReceiptModel

/// Pixel memory for the A8 pages raster renderers draw on, kept for the next page.
///
/// A page of 80 mm receipt is 0.6–5 MB: malloc maps each one afresh and unmaps it when freed,
/// so every page began with a page fault per 4 KiB the first glyphs touched (about 5 % of a
/// batch's time, measured with `perf`). A few buffers are kept instead, cleared before reuse;
/// cairo hands a buffer back when it finalizes the surface (user data with a destroy function),
/// so a surface cairo still holds keeps its memory.
///
/// Clearing a whole page before it is drawn was ~10 % of an ESC/POS receipt's instructions (a
/// 1.4 MB `memset` a page). The 1-bit packer reads every byte a page can be inked in anyway, and
/// clears the few it finds inked as it goes (``RasterRenderer/image(from:columns:height:gray:buffers:)``):
/// a buffer it has swept comes back clear and is not cleared again. Each buffer knows how far it
/// may be dirty (`dirty`: every byte past it is zero); only that much is cleared on its next use.
final class PageBuffers: Sendable {

  /// Buffers kept when free: two workers, each with a page and a band in flight.
  static let keptCount = 4
  /// Larger pages are not kept (a 200-item receipt is ~5 MB at 203 dpi on 80 mm).
  static let keptBytes = 8 << 20

  private struct Buffer {
    let base: UnsafeMutableRawPointer
    let capacity: Int
    /// Every byte from here on is zero (`capacity` for fresh memory).
    var dirty: Int
  }

  /// A buffer lent to a surface of `used` bytes, and whether the packer has swept it clear.
  private struct Loan {
    var buffer: Buffer
    let used: Int
    var swept = false
  }

  private struct State {
    var free: [Buffer] = []
    /// Buffers lent to a surface, by address.
    var lent: [UnsafeMutableRawPointer: Loan] = [:]
  }

  private let state = Locked(State())

  /// A zeroed A8 image surface of `width` × `height` on a kept buffer.
  func surface(width: Int, height: Int) throws -> CairoSurface {
    guard width > 0, height > 0, width <= 32_767, height <= 32_767 else {
      throw RenderError.tooLarge(width: width, height: height)
    }
    let stride = Int(cairo_format_stride_for_width(CAIRO_FORMAT_A8, Int32(width)))
    let bytes = stride * height
    let buffer = take(bytes)
    memset(buffer.base, 0, min(buffer.dirty, bytes))
    let surface: CairoSurface
    do {
      surface = try CairoSurface(
        taking: cairo_image_surface_create_for_data(
          buffer.base.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_A8, Int32(width), Int32(height),
          Int32(stride)),
        what: "a \(width)×\(height) image")
    } catch {
      giveBack(buffer.base)
      throw error
    }
    let lease = Unmanaged.passRetained(Lease(pool: self, base: buffer.base))
    let status = cairo_surface_set_user_data(surface.pointer, Self.key, lease.toOpaque()) { data in
      if let data { Unmanaged<Lease>.fromOpaque(data).takeRetainedValue().end() }
    }
    guard status == CAIRO_STATUS_SUCCESS else {
      // Without the hand-back the memory must outlive the surface: it stays lent (never freed).
      lease.release()
      throw RenderError.cairo(String(cString: cairo_status_to_string(status)))
    }
    return surface
  }

  /// A buffer lent to a surface; cairo ends the lease when it finalizes the surface.
  private final class Lease {
    let pool: PageBuffers
    let base: UnsafeMutableRawPointer
    init(pool: PageBuffers, base: UnsafeMutableRawPointer) { (self.pool, self.base) = (pool, base) }
    func end() { pool.giveBack(base) }
  }

  /// Frees the kept buffers (a lent one keeps its pool alive through its lease).
  deinit {
    state.withLock { state in
      for buffer in state.free { buffer.base.deallocate() }
      state.free.removeAll()
    }
  }

  /// How many buffers are free and how many lent.
  var counts: (free: Int, lent: Int) { state.withLock { ($0.free.count, $0.lent.count) } }

  /// How far each free buffer may be dirty (tests).
  var dirtyExtents: [Int] { state.withLock { $0.free.map(\.dirty) } }

  /// Whether every free buffer is zero past how far it may be dirty (tests: the packer's sweep
  /// missed nothing).
  var freeBuffersAreClearPastTheirExtents: Bool {
    state.withLock { state in
      state.free.allSatisfy { buffer in
        (buffer.dirty..<buffer.capacity).allSatisfy { buffer.base.load(fromByteOffset: $0, as: UInt8.self) == 0 }
      }
    }
  }

  /// Says that every byte of `surface`'s page is zero again and nothing will draw on it any more:
  /// its buffer comes back clear. For the packer that swept it (and cleared what it found inked).
  func swept(_ surface: CairoSurface) {
    guard let data = cairo_image_surface_get_data(surface.pointer) else { return }
    state.withLock { $0.lent[UnsafeMutableRawPointer(data)]?.swept = true }
  }

  private func take(_ bytes: Int) -> Buffer {
    let kept = state.withLock { state -> Buffer? in
      // The smallest that fits, so a band does not take a whole page's buffer.
      let fitting = state.free.indices.filter { state.free[$0].capacity >= bytes }
      guard let index = fitting.min(by: { state.free[$0].capacity < state.free[$1].capacity }) else { return nil }
      let buffer = state.free.remove(at: index)
      state.lent[buffer.base] = Loan(buffer: buffer, used: bytes)
      return buffer
    }
    if let kept { return kept }
    let buffer = Buffer(base: .allocate(byteCount: bytes, alignment: 64), capacity: bytes, dirty: bytes)
    state.withLock { $0.lent[buffer.base] = Loan(buffer: buffer, used: bytes) }
    return buffer
  }

  private func giveBack(_ base: UnsafeMutableRawPointer) {
    let dropped = state.withLock { state -> Buffer? in
      guard let loan = state.lent.removeValue(forKey: base) else { return nil }
      var buffer = loan.buffer
      let capacity = buffer.capacity
      // Cleared up to `used` when lent; drawn on within it; swept clear, or dirty up to it.
      buffer.dirty =
        loan.swept
        ? (buffer.dirty > loan.used ? buffer.dirty : 0)
        : max(buffer.dirty, loan.used)
      guard capacity <= Self.keptBytes else { return buffer }
      state.free.append(buffer)
      guard state.free.count > Self.keptCount else { return nil }
      // Keep the largest: a smaller page fits in them.
      let smallest = state.free.indices.min { state.free[$0].capacity < state.free[$1].capacity }!
      return state.free.remove(at: smallest)
    }
    dropped?.base.deallocate()
  }

  /// The user-data key: its address is what cairo compares.
  nonisolated(unsafe) private static let key = UnsafeMutablePointer<cairo_user_data_key_t>.allocate(capacity: 1)
}
