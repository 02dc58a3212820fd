import Foundation
import ReceiptModel
import ReceiptTestSupport
import Testing

@testable import ReceiptKit
@testable import ReceiptLayout
@testable import ReceiptRender

/// A 1-bit page's buffer is cleared by the packer as it reads it (``PageBuffers``): what it finds
/// inked, and the columns outside the printable ones. Drawn one after another on the same kept
/// buffers — pages, bands, gray pages (which are not swept) between them — every example in
/// every shipped locale on 80 and 58 mm comes out as it does on fresh memory, and every buffer
/// comes back zero past how far it may be dirty.
@Suite struct PageSweepTests {
  @Test(arguments: [Paper.mm80, .mm58])
  func pagesOnSweptBuffersAreThoseOfFreshMemory(paper: Paper) throws {
    let caches = RenderCaches()
    let stress = ("stress", "", try StreamedPrintTests.stress(paper: paper == .mm58 ? "58mm" : nil))
    let receipts =
      try [stress]
      + KeptRunsTests.examples.flatMap { example in
        try KeptRunsTests.locales.map { (example, $0, try KeptRunsTests.laidOut(example, locale: $0, paper: paper)) }
      }
    var swept = 0
    for (example, locale, receipt) in receipts {
      for printableOnly in [false, true] {
        let fresh = try RasterRenderer(printableOnly: printableOnly, caches: RenderCaches()).render(receipt)
        let reused = RasterRenderer(printableOnly: printableOnly, caches: caches)
        let pages = try reused.render(receipt)
        let same = pages == fresh  // not in the expectation: it would print every byte
        #expect(same, "\(example) \(locale) \(paper.name) printable only: \(printableOnly)")
        var stacked: [UInt8] = []
        try reused.render(receipt, page: 0, bands: 97) { _, band in stacked += band.data }
        let sameInBands = stacked == fresh[0].data
        #expect(sameInBands, "\(example) \(locale) \(paper.name) in bands, printable only: \(printableOnly)")
        swept += caches.pageBuffers.dirtyExtents.filter { $0 == 0 }.count
        #expect(caches.pageBuffers.freeBuffersAreClearPastTheirExtents, "\(example) \(locale) \(paper.name)")
      }
      // A gray page inks the buffer and is not swept: the next 1-bit page clears it first.
      _ = try RasterRenderer(gray: true, caches: caches).render(receipt)
      #expect(caches.pageBuffers.freeBuffersAreClearPastTheirExtents)
    }
    #expect(swept > 0, "no buffer ever came back swept")
  }
}
