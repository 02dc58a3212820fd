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
