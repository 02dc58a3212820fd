import Foundation
import ReceiptLayout
import ReceiptModel
import ReceiptTestSupport
import Testing

@Suite struct LineBreakingTests {
  let engine = try! ReceiptLayoutEngine()
  let paragraph = """
    Receipts are printed on continuous paper, so the printer needs to know exactly how long each \
    one is before it cuts. Proportional fonts, kerning and unhyphenated word wrapping all change the \
    answer, which is why we measure with the same shaping engine that draws the glyphs.
    """

  /// Pango (hinting off, 72 dpi, subpixel positions — otherwise it rounds every glyph position to a
  /// whole point) is an independent engine: same font, same width → same lines.
  @Test("Latin lines match Pango", arguments: [120, 160, 186, 240])
  func matchesPango(width: Int) throws {
    let pangoLines = try Tool.pangoLines(paragraph, font: "DejaVu Sans 10", width: width)
    let ours = try engine.lines(AttributedText(paragraph), width: Double(width))
    #expect(ours == pangoLines)
  }

  @Test func overlongWordBreaksBetweenGraphemes() throws {
    let word = String(repeating: "ABCDEFGHIJ", count: 8)
    let text = AttributedText("Code: \(word) end")
    let width = 150.0
    let page = try engine.page([.text(text)], setup: PageSetup(margins: Insets(all: .zero)))
    let origin = PageSetup(margins: Insets(all: .zero)).contentOriginX.points
    #expect(page.lines.count >= 4)
    for line in try engine.lines(text, width: width) { #expect(!line.isEmpty) }
    for line in page.lines {
      let right = line.last!.origin.x + line.last!.width
      #expect(right - origin <= PageSetup(margins: Insets(all: .zero)).contentWidth.points + 1e-6)
    }
    let joined = try engine.lines(text, width: width).joined()
    #expect(joined.replacingOccurrences(of: " ", with: "") == "Code:\(word)end")
  }

  @Test func cjkWrapsBetweenIdeographsWithKinsoku() throws {
    let text = AttributedText("今日はとても良い天気ですね。ご来店ありがとうございました、またのお越しをお待ちしております。")
    let lines = try engine.lines(text, width: 100)
    #expect(lines.count >= 3)
    #expect(lines.joined() == text.string)
    for line in lines.dropFirst() {
      #expect(
        !["。", "、", "ー", "ッ", "ょ"].contains(String(line.first!)), "line starts with a prohibited character: \(line)")
    }
    let page = try engine.page([.text(text)])
    #expect(page.runs.allSatisfy { !$0.font.family.contains("DejaVu") }, "CJK falls back to a CJK font")
  }

  /// Under UAX #9 (rule W2) digits after an Arabic letter are Arabic numbers and a bare `$`
  /// resolves right-to-left, so the price is wrapped in a left-to-right isolate (LRI…PDI), as the
  /// template formatter does for bound values. The digits stay left-to-right either way.
  @Test func arabicIsShapedRightAlignedAndKeepsNumbersLeftToRight() throws {
    let plain = try engine.page([.text(AttributedText("المجموع $9.99"))])
    let digits = try #require(plain.runs.first { $0.text.contains("9.99") })
    #expect(!digits.rightToLeft)
    #expect(digits.glyphs.map(\.cluster) == digits.glyphs.map(\.cluster).sorted())

    let setup = PageSetup()
    let page = try engine.page([.text(AttributedText("المجموع \u{2066}$9.99\u{2069}"))])
    let runs = page.runs
    let arabic = try #require(runs.first { $0.text.contains("المجموع") })
    let price = try #require(runs.first { $0.text.contains("9.99") })
    #expect(arabic.rightToLeft)
    #expect(!price.rightToLeft)
    #expect(price.text.unicodeScalars.filter { $0.value < 0x2000 }.map(String.init).joined() == "$9.99")
    // Visual order in a right-to-left paragraph: the price is to the left of the word.
    #expect(price.origin.x < arabic.origin.x)
    // Right-aligned by default: the line ends at the content's right edge.
    let right = setup.contentOriginX.points + setup.contentWidth.points
    #expect(abs(arabic.origin.x + arabic.width - right) < 1e-6)
    // Joined forms: the word's glyphs differ from its letters shaped in isolation.
    var isolated: [UInt32] = []
    for letter in "المجموع" {
      isolated += try engine.page([.text(AttributedText(String(letter)))]).runs.flatMap { $0.glyphs.map(\.id) }
    }
    #expect(Set(arabic.glyphs.map(\.id)) != Set(isolated))
  }

  @Test func emojiFallsBackToAColorFontAndZWJSequencesStayTogether() throws {
    let page = try engine.page([.text(AttributedText("Thanks 😀 family 👨‍👩‍👧 ok"))])
    let emoji = page.runs.filter { $0.font.isColor }
    #expect(!emoji.isEmpty)
    let family = try #require(emoji.first { $0.text.contains("👨") })
    #expect(family.text.contains("👨‍👩‍👧"))
    #expect(page.runs.contains { $0.font.family == "DejaVu Sans" && $0.text.contains("Thanks") })
  }

  @Test func maxLinesTruncatesWithAnEllipsis() throws {
    let text = AttributedText(paragraph, paragraphStyle: ParagraphStyle(maxLines: 2))
    let lines = try engine.lines(text, width: 150)
    try #require(lines.count == 2)
    #expect(lines[1].hasSuffix("…"))
  }
}
