import Foundation
import ReceiptLayout
import ReceiptModel
import ReceiptTestSupport
import Testing

@Suite struct TextHeightTests {
  let engine = try! ReceiptLayoutEngine()
  let width = PageSetup().contentWidth.points

  @Test("DejaVu Sans metrics come from the font file", arguments: [7.0, 10, 12.5, 24])
  func singleFontHeight(size: Double) throws {
    let font = FontDescriptor(families: ["DejaVu Sans"], size: size)
    let metrics = try engine.fontMetrics(font)
    let file = try FontFile(path: metrics.face.path)
    #expect(metrics.face.path.hasSuffix("DejaVuSans.ttf"))
    let lineHeight = file.lineHeight(size: size)
    #expect(abs(metrics.ascent + metrics.descent + metrics.lineGap - lineHeight) < 1e-9)
    let text = AttributedText(
      "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore.\nSecond paragraph.",
      attributes: TextAttributes(font: font))
    let lines = try engine.lineCount(text, width: width)
    #expect(lines >= 2)
    #expect(abs(try engine.measure(text, width: width) - Double(lines) * lineHeight) < 1e-9)
  }

  @Test func trailingNewlineAddsNoLine() throws {
    let doc = ReceiptDocument.plainText("One\nTwo\n")
    let text = AttributedText("One\nTwo")
    #expect(try engine.lineCount(text, width: width) == 2)
    let page = try engine.layout(doc).pages[0]
    #expect(abs(page.contentHeight - 2 * 11.640625) < 1e-9)
  }

  @Test func emptyLinesKeepTheirHeight() throws {
    let text = AttributedText("One\n\nThree")
    #expect(try engine.lineCount(text, width: width) == 3)
    #expect(abs(try engine.measure(text, width: width) - 3 * 11.640625) < 1e-9)
  }

  @Test func cutLengthIsCeilOfContentPlusMargins() throws {
    let doc = ReceiptDocument.plainText("A\nB\nC")
    let page = try engine.layout(doc).pages[0]
    #expect(abs(page.contentHeight - 3 * 11.640625) < 1e-9)
    #expect(page.cutLength == (3 * 11.640625).rounded(.up) + 18)
    #expect(abs(page.width - 226.771653) < 1e-5)
  }

  @Test func defaultTabStopsAdvanceToTheNextInterval() throws {
    let text = AttributedText("Coffee\t3.50")
    let lines = try engine.lines(text, width: width)
    #expect(lines == ["Coffee3.50"])
    let laid = try engine.layout(ReceiptDocument(blocks: [.text(text)]))
    let runs = laid.pages[0].items.compactMap { item -> GlyphRun? in
      if case .glyphs(let run) = item { return run }
      return nil
    }
    let origin = PageSetup().contentOriginX.points
    try #require(runs.count == 2)
    let stop = ((runs[0].width / 36).rounded(.down) + 1) * 36
    #expect(abs(runs[1].origin.x - origin - stop) < 1e-9)
  }
}

@Test func carriageReturnLineFeedInAttributedText() throws {
  let engine = try ReceiptLayoutEngine()
  let lines = try engine.lines(AttributedText("One\r\nTwo\nThree"), width: 186)
  try #require(lines.count == 3)
  #expect(lines[2] == "Three")
}
