import ReceiptLayout
import ReceiptModel

extension LaidOutPage {
  /// The glyph runs of the page, in paint order.
  var runs: [GlyphRun] {
    items.compactMap {
      if case .glyphs(let run) = $0 { return run }
      return nil
    }
  }
  /// Runs grouped into lines by baseline, each line's runs left to right.
  var lines: [[GlyphRun]] {
    let grouped = Dictionary(grouping: runs) { ($0.origin.y * 1000).rounded() }
    return grouped.keys.sorted().map { grouped[$0]!.sorted { $0.origin.x < $1.origin.x } }
  }
}

extension ReceiptLayoutEngine {
  func page(_ blocks: [Block], setup: PageSetup = PageSetup()) throws -> LaidOutPage {
    try layout(ReceiptDocument(pageSetup: setup, blocks: blocks)).pages[0]
  }
}
