import Foundation
import ReceiptLayout
import ReceiptModel
import ReceiptTestSupport
import Testing

@testable import ReceiptRender

/// Raster pages are drawn on kept buffers: each comes back when cairo lets go of its surface,
/// and comes out cleared whatever was drawn on it before.
@Suite struct PageBuffersTests {
  @Test func aBufferComesBackWhenItsSurfaceIsGoneAndIsClearedForTheNext() throws {
    let pool = PageBuffers()
    do {
      let surface = try pool.surface(width: 333, height: 77)
      #expect(pool.counts.lent == 1 && pool.counts.free == 0)
      let (pixels, stride) = try surface.pixels()
      memset(pixels, 0xFF, stride * 77)
    }
    #expect(pool.counts.lent == 0 && pool.counts.free == 1, "given back when the surface is gone")
    for (width, height) in [(333, 77), (100, 10), (333, 76)] {
      let surface = try pool.surface(width: width, height: height)
      #expect(pool.counts.free == 0, "the kept buffer is used again")
      let (pixels, stride) = try surface.pixels()
      #expect((0..<(stride * height)).allSatisfy { pixels[$0] == 0 }, "\(width)×\(height) is cleared")
      memset(pixels, 0xFF, stride * height)
    }
    #expect(pool.counts.lent == 0 && pool.counts.free == 1)
  }

  /// A buffer the packer swept is not cleared again (here a byte left inked on purpose shows it
  /// was not), and one that was not is cleared as far as it was ever used: a small swept page on
  /// a large page's dirty buffer leaves the rest of it to be cleared.
  @Test func aSweptBufferIsNotClearedAgainAndADirtyOneIsAsFarAsItWasUsed() throws {
    let pool = PageBuffers()
    do {
      let surface = try pool.surface(width: 640, height: 100)
      let (pixels, stride) = try surface.pixels()
      memset(pixels, 0xFF, stride * 100)
    }
    #expect(pool.dirtyExtents == [640 * 100])
    do {
      let surface = try pool.surface(width: 640, height: 10)
      let (pixels, _) = try surface.pixels()
      pixels[5] = 0x7F
      pool.swept(surface)
    }
    #expect(pool.dirtyExtents == [640 * 100], "swept within the first 10 rows, dirty past them")
    do {
      let surface = try pool.surface(width: 640, height: 100)
      let (pixels, stride) = try surface.pixels()
      #expect((0..<(stride * 100)).allSatisfy { pixels[$0] == 0 }, "cleared as far as it was used")
      pixels[5] = 0x7F
      pool.swept(surface)
    }
    #expect(pool.dirtyExtents == [0])
    let surface = try pool.surface(width: 640, height: 100)
    let (pixels, _) = try surface.pixels()
    #expect(pixels[5] == 0x7F, "a swept buffer was cleared again")
  }

  @Test func aFewOfTheLargestAreKeptAndLargePagesAreNot() throws {
    let pool = PageBuffers()
    var held = try (1...6).map { try pool.surface(width: 640, height: 100 * $0) }
    // Held until removed (an optimized build may end a value's life at its last use).
    withExtendedLifetime(held) { #expect(pool.counts.lent == 6) }
    held.removeAll()
    #expect(pool.counts.lent == 0 && pool.counts.free == PageBuffers.keptCount)
    // The smallest fitting buffer is taken: a band does not take the largest page's memory.
    let band = try pool.surface(width: 640, height: 256)
    #expect(pool.counts.free == PageBuffers.keptCount - 1 && pool.counts.lent == 1)
    let huge = PageBuffers.keptBytes / 640 + 1
    do { _ = try pool.surface(width: 640, height: huge) }
    #expect(pool.counts.free == PageBuffers.keptCount - 1, "a page over \(PageBuffers.keptBytes) bytes is freed")
    withExtendedLifetime(band) {}
    // The band took the smallest kept buffer (300 rows; 100 and 200 were dropped): 600 is free.
    let largest = try pool.surface(width: 640, height: 600)
    #expect(pool.counts.free == PageBuffers.keptCount - 2)
    withExtendedLifetime(largest) {}
  }
}
