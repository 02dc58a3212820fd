import Foundation
import ReceiptLayout
import ReceiptModel
import ReceiptTestSupport
import Testing

@testable import ReceiptRender

/// A logo's dots from the cache are the dots drawn afresh, for every dither, position, size and
/// page depth (a key missing one of them would hand one receipt another's dots).
@Suite(.serialized) struct ImageDotCacheTests {
  @Test func cachedDotsAreTheDotsDrawnAfresh() throws {
    let png = try DitherTests().gradientPNG()
    var cases: [(ReceiptDocument, Bool)] = []
    for method in DitherMethod.allCases {
      for alignment in [TextAlignment.left, .center, .right] {
        for width in [nil, Length.mm(21.3)] {
          let image = ImageBlock(data: png, width: width, alignment: alignment, dither: method)
          for gray in [false, true] { cases.append((ReceiptDocument(blocks: [.image(image)]), gray)) }
        }
      }
    }
    let engine = try ReceiptLayoutEngine()
    let laidOut = try cases.map { try engine.layout($0.0) }
    // One after the other: each may find the others' dots in the cache.
    let caches = RenderCaches()
    let warm = try zip(laidOut, cases).map { try RasterRenderer(gray: $1.1, caches: caches).render($0) }
    #expect(caches.imageDots.count > 0)
    for (i, receipt) in laidOut.enumerated() {
      caches.imageDots.removeAll()
      let fresh = try RasterRenderer(gray: cases[i].1, caches: caches).render(receipt)
      // Booleans, not the pages: a failure names the case without printing every dot.
      let same = fresh == warm[i]
      #expect(same, "case \(i): the cached dots differ from fresh ones")
      // And drawn again from the cache.
      let again = try RasterRenderer(gray: cases[i].1, caches: caches).render(receipt) == fresh
      #expect(again, "case \(i): drawn from the cache, the dots differ")
    }
  }
}
