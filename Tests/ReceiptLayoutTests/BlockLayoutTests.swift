import Foundation
import ReceiptLayout
import ReceiptModel
import Testing

@Suite struct BlockLayoutTests {
  let engine = try! ReceiptLayoutEngine()

  @Test func gridRowsKeepPricesRightAlignedInOneColumn() throws {
    var rows: [Block] = []
    for i in 0..<50 {
      let name = String(repeating: "Item \(i) ", count: 1 + i % 4)
      let price = String(format: "%.2f", Double(i * 37 % 1000) + 0.99)
      rows.append(
        .row(
          Row(
            [
              Cell(.text(AttributedText(name)), width: .weight(1)),
              Cell(.text(AttributedText("×\(1 + i % 12)")), alignment: .trailing),
              Cell(.text(AttributedText(price)), alignment: .trailing),
            ], spacing: 6)))
    }
    let page = try engine.page([.column(Column(rows, grid: true))])
    let prices = page.runs.filter { $0.text.contains(".") && $0.text.first!.isNumber }
    #expect(prices.count == 50)
    let rights = prices.map { $0.origin.x + $0.width }
    let right = PageSetup().contentOriginX.points + PageSetup().contentWidth.points
    #expect(rights.allSatisfy { abs($0 - right) < 1e-6 })
    // Quantities share one column too: their right edges line up.
    let quantities = page.runs.filter { $0.text.hasPrefix("×") }
    let qRights = quantities.map { $0.origin.x + $0.width }
    #expect(qRights.allSatisfy { abs($0 - qRights[0]) < 1e-6 })
    // Names never run into the quantity column.
    let qLeft = quantities.map(\.origin.x).min()!
    let names = page.runs.filter { $0.text.hasPrefix("Item") || $0.text.contains("Item") }
    #expect(names.allSatisfy { $0.origin.x + $0.width <= qLeft - 6 + 1e-6 })
  }

  /// Found by the crash test with real order data: a missing price bound an empty cell, and
  /// measuring an empty cell's natural width in a grid read past an empty array (the daemon
  /// died on every such order).
  @Test func emptyCellsInAGridHaveZeroWidth() throws {
    let rows: [Block] = [
      .row(Row([Cell(.text(AttributedText("Tea")), width: .weight(1)), Cell(.text(AttributedText("")))])),
      .row(Row([Cell(.text(AttributedText("")), width: .weight(1)), Cell(.text(AttributedText("3.50")))])),
      .row(Row([Cell(.text(AttributedText("\n"))), Cell(.text(AttributedText("")), alignment: .trailing)])),
    ]
    let page = try engine.page([.column(Column(rows, grid: true))])
    #expect(page.runs.map(\.text).sorted() == ["3.50", "Tea"])
  }

  @Test func rightTabStopsWithDotLeadersLineUp() throws {
    let style = ParagraphStyle(tabStops: [TabStop(location: -0.001, alignment: .right, leader: ".")])
    let text = AttributedText("Subtotal\t9.99\nTax\t0.80\nTotal\t110.79", paragraphStyle: style)
    let page = try engine.page([.text(text)])
    let prices = page.runs.filter { $0.text.first?.isNumber == true }
    #expect(prices.count == 3)
    let rights = prices.map { $0.origin.x + $0.width }
    #expect(rights.allSatisfy { abs($0 - rights[0]) < 1e-6 })
    let leaders = page.runs.filter { $0.text.allSatisfy { $0 == "." } && $0.text.count > 3 }
    #expect(leaders.count == 3)
    // Leader dots sit on one grid, so the dots of different lines are vertically aligned.
    let xs = leaders.map { Set($0.glyphs.map { ($0.x * 1000).rounded() }) }
    #expect(!xs[0].intersection(xs[1]).isEmpty && !xs[1].intersection(xs[2]).isEmpty)
  }

  @Test func twoCutsGiveThreePagesEachContentPlus18() throws {
    let doc = ReceiptDocument(blocks: [
      .text(AttributedText("Customer copy")), .cut(.partial),
      .text(AttributedText("Merchant copy\nSignature: ________")), .cut(.full),
      .text(AttributedText("Kitchen")), .drawerKick(.pin2),
    ])
    let receipt = try engine.layout(doc)
    try #require(receipt.pages.count == 3)
    #expect(receipt.pages.map(\.cut) == [.partial, .full, nil])
    for page in receipt.pages { #expect(page.cutLength == page.contentHeight.rounded(.up) + 18) }
    #expect(abs(receipt.pages[1].contentHeight - 2 * 11.640625) < 1e-9)
    #expect(receipt.pages[2].commands == [.drawerKick(.pin2)])
  }

  @Test func blockHeightsAddUp() throws {
    let rule = Rule(style: .solid, thickness: 1, padding: 3)
    let page = try engine.page([
      .text(AttributedText("A")), .rule(rule), .feed(.pt(10)), .spacer(Spacer(length: .pt(5))),
    ])
    #expect(abs(page.contentHeight - (11.640625 + 7 + 10 + 5)) < 1e-9)
  }

  @Test func badCheckDigitIsAClearError() throws {
    #expect(throws: LayoutError.self) { try engine.page([.barcode(Barcode(.ean13, data: "4006381333932"))]) }
    let page = try engine.page([.barcode(Barcode(.ean13, data: "4006381333931"))])
    #expect(page.items.contains { if case .barcode = $0 { return true } else { return false } })
  }

  @Test func barcodeWiderThanThePaperIsAnError() throws {
    let long = String(repeating: "RECEIPT-", count: 20)
    #expect(throws: LayoutError.self) { try engine.page([.barcode(Barcode(.code128, data: long, moduleDots: 3))]) }
  }
}
