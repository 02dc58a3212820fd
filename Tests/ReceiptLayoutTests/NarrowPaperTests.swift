import ReceiptLayout
import ReceiptModel
import Testing

/// 58 mm paper (48 mm printable, 9 pt margins: 118 pt of text) in DejaVu Sans 9 pt, with the data
/// a new user's receipt showed glued or split.
@Suite struct NarrowPaperTests {
  let engine = try! ReceiptLayoutEngine()
  let setup = PageSetup(paper: .mm58)
  var left: Double { setup.contentOriginX.points }
  var right: Double { setup.contentOriginX.points + setup.contentWidth.points }
  /// One space of DejaVu Sans at 9 pt (its advance is 651/2048 em).
  let space = 651.0 / 2048 * 9

  static let font = TextAttributes(font: FontDescriptor(size: 9))

  func text(_ string: String, _ style: ParagraphStyle = ParagraphStyle()) -> Block {
    .text(AttributedText(string, attributes: Self.font, paragraphStyle: style))
  }

  /// The width of a string on one line.
  func width(_ string: String) throws -> Double {
    let wide = PageSetup(paper: .custom(width: .pt(2000), printableWidth: .pt(2000)))
    return try engine.page([text(string)], setup: wide).runs.reduce(0) { $0 + $1.width }
  }

  /// Amounts as the currency formatter writes them (a no-break space before the sign).
  @Test func textAfterATabKeepsAtLeastOneSpaceFromTheTextBefore() throws {
    let style = ParagraphStyle(tabStops: [TabStop(location: -0.001, alignment: .right)])
    let page = try engine.page([text("Rabatt MORGEN10\t-3,28\u{A0}€", style)], setup: setup)
    let label = try #require(page.runs.first { $0.text == "Rabatt MORGEN10" })
    let amount = try #require(page.runs.first { $0.text == "-3,28\u{A0}€" })
    // Both fit on one line only without a gap: the amount moved down, to its stop.
    #expect(label.width + amount.width <= right - left)
    #expect(label.width + space + amount.width > right - left)
    #expect(amount.origin.y > label.origin.y)
    #expect(abs(amount.origin.x + amount.width - right) < 0.01)
  }

  @Test func aTabGapCanBeSetAndTextThatKeepsItStaysOnItsLine() throws {
    let wide = ParagraphStyle(tabStops: [TabStop(location: -0.001, alignment: .right)], tabGap: 0)
    let glued = try engine.page([text("Rabatt MORGEN10\t-3,28\u{A0}€", wide)], setup: setup)
    #expect(glued.lines.count == 1)
    let style = ParagraphStyle(tabStops: [TabStop(location: -0.001, alignment: .right)], tabGap: 30)
    let page = try engine.page([text("Summe\t12,50 €", style)], setup: setup)
    let label = try #require(page.runs.first { $0.text == "Summe" })
    let amount = try #require(page.runs.first { $0.text == "12,50 €" })
    #expect(amount.origin.y == label.origin.y)
    #expect(amount.origin.x - (label.origin.x + label.width) >= 30)
  }

  @Test func textAfterATabThatCannotFitMovesToTheNextLineAtItsStop() throws {
    let style = ParagraphStyle(tabStops: [TabStop(location: -0.001, alignment: .right)])
    let page = try engine.page([text("Bestellung #9999\t20.11.2026", style)], setup: setup)
    #expect(page.lines.count == 2)
    let date = try #require(page.runs.first { $0.text == "20.11.2026" })
    let order = try #require(page.runs.first { $0.text == "Bestellung #9999" })
    #expect(date.origin.y > order.origin.y)
    #expect(abs(date.origin.x + date.width - right) < 0.01)
    // A left stop the label passes: the text goes to the next 36 pt stop, cannot fit there, and
    // moves down to its stop.
    let leftStop = ParagraphStyle(tabStops: [TabStop(location: 60, alignment: .left)])
    let second = try engine.page([text("Zwischensummen\tMORGEN", leftStop)], setup: setup)
    let code = try #require(second.runs.first { $0.text == "MORGEN" })
    #expect(try width("Zwischensummen") > 60 && width("MORGEN") + 108 > right - left)
    #expect(abs(code.origin.x - (left + 60)) < 1e-6)
    #expect(second.lines.count == 2)
  }

  @Test func noTwoWordsOfATabbedLineComeCloserThanTheGap() throws {
    let style = ParagraphStyle(tabStops: [TabStop(location: -0.001, alignment: .right)])
    for label in ["Rabatt MORGEN10", "Bestellung #9999", "Trinkgeld", "Zwischensumme netto", "MwSt 19 % auf 100,00"] {
      for amount in ["-3,28\u{A0}€", "20.11.2026", "1.234.567,89\u{A0}€"] {
        let page = try engine.page([text("\(label)\t\(amount)", style)], setup: setup)
        for line in page.lines {
          for (a, b) in zip(line, line.dropFirst()) {
            #expect(b.origin.x - (a.origin.x + a.width) >= space - 1e-6, "\(label) | \(amount)")
          }
        }
      }
    }
  }

  @Test func anAutoCellShrinksToItsWordsBeforeAWeightedCellSplitsOne() throws {
    let row = Row([
      Cell(.text(AttributedText("Bestellung #9999", attributes: Self.font))),
      Cell(
        .text(
          AttributedText("20.11.2026", attributes: Self.font, paragraphStyle: ParagraphStyle(alignment: .trailing))),
        width: .weight(1)),
    ])
    #expect(try width("Bestellung #9999") + width("20.11.2026") > right - left)
    let page = try engine.page([.row(row)], setup: setup)
    // The date is whole on one line; the auto cell wrapped between its words.
    #expect(page.runs.contains { $0.text == "20.11.2026" })
    #expect(page.runs.contains { $0.text == "Bestellung" })
    #expect(page.runs.contains { $0.text == "#9999" })
  }

  @Test func cellsSplitAWordOnlyWhenItIsWiderThanTheCellCanBe() throws {
    let row = Row([
      Cell(.text(AttributedText("Qty 2", attributes: Self.font))),
      Cell(
        .text(AttributedText("Donaudampfschifffahrtsgesellschaftskapitän", attributes: Self.font)), width: .weight(1)),
    ])
    let page = try engine.page([.row(row)], setup: setup)
    // The long word cannot fit even with the first cell at its narrowest ("Qty"): it is split,
    // and the first cell gave up its room (its words on two lines).
    #expect(page.runs.contains { $0.text == "Qty" } && page.runs.contains { $0.text == "2" })
    let pieces = page.runs.filter { $0.text != "Qty" && $0.text != "2" }.map(\.text)
    #expect(pieces.count > 1 && pieces.joined() == "Donaudampfschifffahrtsgesellschaftskapitän")
  }
}
