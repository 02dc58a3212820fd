import Foundation
import ReceiptLayout
import ReceiptMarkup
import ReceiptModel
import ReceiptTestSupport
import Testing

/// No-break spaces written in a template (`&#160;`, `&#8239;`, `&#8288;`) are text, not white
/// space to collapse: French guillemets and the space before `: ; ! ?`, Swiss thousands, "100 g"
/// — lines break where Pango breaks them at every width from 30 to 80 mm, and never beside a
/// no-break space.
@Suite struct NoBreakSpaceTests {
  let engine = try! ReceiptLayoutEngine()

  /// French, German and Swiss punctuation with its no-break spaces, as a template writes them.
  static let corpus = [
    "Code promo&#160;: «&#160;NOEL10&#160;» valable jusqu’au 24&#160;décembre&#160;!",
    "Total TTC&#160;: 1&#8239;234,56&#160;€ — merci de votre visite&#160;; à bientôt&#160;?",
    "«&#160;Pain au chocolat&#160;» 2&#160;×&#160;1,30&#160;€, «&#160;Café crème&#160;» 100&#160;g",
    "Fr.&#160;1’234.50 inkl. 7,7&#160;% MwSt. – «&#160;Zmorge&#160;» für 2&#8288;Personen&#160;!",
    "Gutschein «&#160;WEIHNACHTEN2026&#160;» einlösbar bis 31.&#160;12.&#160;2026&#160;: Danke&#160;!",
  ]

  /// The text a template binds, through the markup's white-space rules.
  func bound(_ markup: String) throws -> AttributedText {
    let rendered = try TemplateFixture.body("<text font=\"DejaVu Sans 9\">\(markup)</text>")
    guard case .text(let text)? = rendered.document.blocks.first else { throw RigError("no text block") }
    return text
  }

  @Test func noBreakSpacesAreKeptAndBreakWherePangoBreaks() throws {
    for markup in Self.corpus {
      let text = try bound(markup)
      let plain = text.string
      #expect(plain.contains("\u{00A0}"), "the no-break spaces are kept: \(plain.debugDescription)")
      for millimetres in stride(from: 30, through: 80, by: 2) {
        let width = Int((Double(millimetres) / 25.4 * 72).rounded())
        let ours = try engine.lines(text, width: Double(width))
        let pango = try Tool.pangoLines(plain, font: "DejaVu Sans 9", width: width, language: "fr")
        // Compared without spaces, and without the word joiner, which Pango does not put in
        // its PDF's text (the breaks are what is compared).
        let squeeze = { (line: String) in line.filter { !$0.isWhitespace && $0 != "\u{2060}" } }
        // Where a word is wider than the line, Pango lets it run past the edge; receipt wraps it
        // between characters (the paper has no more room): the lines agree up to it.
        let overflow = try pango.firstIndex { line in try isWider(line, than: width) } ?? pango.count
        #expect(
          ours.prefix(overflow).map(squeeze) == pango.prefix(overflow).map(squeeze),
          "\(millimetres) mm: \(ours) vs Pango \(pango)")
        for line in ours.dropLast() {
          #expect(!line.hasSuffix("\u{00A0}") && !line.hasSuffix("\u{202F}") && !line.hasSuffix("\u{2060}"))
        }
        for line in ours.dropFirst() {
          #expect(!line.hasPrefix("\u{00A0}") && !line.hasPrefix("\u{202F}"), "\(millimetres) mm: \(line)")
        }
      }
    }
  }

  /// Whether a line of Pango's is wider than `width` (a word longer than the line).
  func isWider(_ line: String, than width: Int) throws -> Bool {
    try engine.lineCount(
      AttributedText(line, attributes: TextAttributes(font: FontDescriptor(size: 9))), width: Double(width))
      > 1
  }

  /// HTML's white space still collapses (spaces, tabs, new lines in the template's source).
  @Test func asciiWhiteSpaceStillCollapses() throws {
    let text = try bound("  Merci \n\t  de   votre&#160;&#160;visite  ")
    #expect(text.string == "Merci de votre\u{00A0}\u{00A0}visite")
  }
}
