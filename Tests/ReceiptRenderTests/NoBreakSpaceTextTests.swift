import Foundation
import ReceiptTestSupport
import Testing

@testable import ReceiptRender

/// A document's run text with its no-break spaces made spaces (`CairoPainter.spacedText`), read
/// by a byte scan, against the same text read through Foundation's UTF-16 view.
@Suite struct NoBreakSpaceTextTests {
  /// What the scan must give: each U+00A0, U+2007 and U+202F a space, and their UTF-16 offsets
  /// (a glyph's cluster), found through the string's UTF-16 units.
  func expected(_ text: String) -> (String, [Int], [UInt16])? {
    let units = Array(text.utf16)
    let offsets = units.indices.filter { CairoPainter.noBreakSpaces.contains(units[$0]) }
    guard !offsets.isEmpty else { return nil }
    let spaced = String(decoding: units.map { CairoPainter.noBreakSpaces.contains($0) ? 0x20 : $0 }, as: UTF16.self)
    return (spaced, offsets, offsets.map { units[$0] })
  }

  @Test(arguments: [
    "12,50\u{A0}€", "1\u{202F}234,00\u{A0}€", "ليس\u{A0}١٢٫٥٠\u{A0}ر.س", "合計\u{A0}¥1,200", "😀\u{A0}x\u{2007}y",
    "\u{A0}", "\u{A0}\u{A0}\u{202F}", "no spaces at all", "Grüße ohne", "€ 3", "\u{2008}\u{2006}\u{2009}", "a\u{A0}",
    "𝔘\u{202F}𝔙\u{A0}",
  ])
  func everyNoBreakSpaceIsASpaceAtItsUTF16Offset(_ text: String) throws {
    let found = CairoPainter.spacedText(text)
    guard let (spaced, offsets, units) = expected(text) else {
      #expect(found == nil)
      return
    }
    let (text, places) = try #require(found)
    #expect(text == spaced)
    #expect(places.map(\.offset) == offsets)
    #expect(places.map(\.unit) == units)
  }

  @Test func randomTextsReadAsTheirUTF16UnitsSay() {
    var generator = SeededGenerator(defaultSeed: 54)
    let pieces = ["a", " ", "\u{A0}", "\u{2007}", "\u{202F}", "é", "€", "合", "😀", "ب", "\u{2008}", "\u{C2}"]
    for _ in 0..<2_000 {
      let text = (0..<Int.random(in: 0...12, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }
        .joined()
      let found = CairoPainter.spacedText(text)
      if let (spaced, offsets, units) = expected(text) {
        #expect(found?.0 == spaced, "\(text.unicodeScalars.map { String($0.value, radix: 16) }), \(generator.seedNote)")
        #expect(found?.1.map(\.offset) == offsets)
        #expect(found?.1.map(\.unit) == units)
      } else {
        #expect(found == nil)
      }
    }
  }
}
