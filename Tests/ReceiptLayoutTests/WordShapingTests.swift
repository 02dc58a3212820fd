import Foundation
import ReceiptModel
import ReceiptTestSupport
import Testing

@testable import ReceiptLayout

/// Words shaped one by one from the cache must be exactly what shaping the whole text gives, in
/// every installed font the check lets through; the check must refuse what it would get wrong.
/// (The example corpus through the templates: `WordShapingCorpusTests` in ReceiptKitTests.)
@Suite struct WordShapingTests {
  /// Printable ASCII, the Latin-1 letters and signs, and the simple path's punctuation, currency
  /// and letterlike signs: its everyday text.
  static let characters: [UInt16] =
    Array(0x21...0x7E) + Array(0xA1...0xFF) + [0x152, 0x153, 0x132, 0x133, 0x2C6]
    + TextLayouter.simpleRanges.dropFirst().flatMap { Array($0) }

  /// For each character c, "c a c b c c …" with single and double spaces: every ordered pair of
  /// characters meets across a space, in both orders.
  static func paragraphs() -> [[UInt16]] {
    characters.map { c in
      var units: [UInt16] = []
      for (i, d) in characters.enumerated() {
        units += [c, 0x20, d, 0x20]
        if i % 5 == 0 { units.append(0x20) }
      }
      return units
    }
  }

  func glyphs(_ font: Font, _ layouter: TextLayouter, byWords: Bool, size: Double = 10) -> [[ShapedGlyph]] {
    let attributes = TextAttributes(font: FontDescriptor(families: [font.face.family], size: size))
    let latin = UnicodeProperties.scriptCode(0x41)
    return Self.paragraphs().map { units in
      let p = Paragraph(units: units, offset: 0)
      return byWords
        ? layouter.shapeWordByWord(p, 0..<units.count, font, attributes, latin)
        : layouter.shape(p, 0..<units.count, font, attributes, 0, latin, false).glyphs
    }
  }

  /// Every scalable font fontconfig lists here (DejaVu, WenQuanYi, Noto Color Emoji, Symbola,
  /// Garuda, and whatever else the machine has): where the check says words shape exactly, they
  /// do, glyph for glyph, position for position, with the same unsafe-to-break flags.
  @Test func everyFontTheCheckAcceptsShapesWordsExactly() throws {
    let listed = try Tool.run("fc-list", ["--format", "%{file}\n", ":scalable=true"]).stdout
    let files = Set(listed.split(separator: "\n").map(String.init)).filter {
      $0.hasSuffix(".ttf") || $0.hasSuffix(".otf") || $0.hasSuffix(".ttc")
    }
    let layouter = TextLayouter(fonts: FontCollection(cacheFile: nil))
    var accepted: [String] = []
    for file in files.sorted() {
      guard let font = try? Font(FontFace(path: file, family: "Test")) else { continue }
      guard Font.wordShapingIsExact(face: font.hbFace, font: font.hbFont) else { continue }
      accepted.append(file)
      let whole = glyphs(font, layouter, byWords: false)
      let words = glyphs(font, layouter, byWords: true)
      for (i, pair) in zip(whole, words).enumerated() where pair.0 != pair.1 {
        Issue.record("\(file): words shaped apart differ around U+\(String(Self.characters[i], radix: 16))")
        break
      }
    }
    #expect(accepted.contains { $0.hasSuffix("DejaVuSans.ttf") }, "the default font takes the cache: \(accepted)")
  }

  /// DejaVu Sans has a ligature of a space and a following Arabic haraka (U+064E): shaping the
  /// two apart is wrong there. The check still accepts the font, because no text of the simple
  /// path (Latin, punctuation, currency) can become a haraka — and text with one never takes that path.
  @Test func aLookupThroughTheSpaceIsWhyTheCheckExists() throws {
    let fonts = FontCollection(cacheFile: nil)
    let font = try fonts.chain(for: .receiptDefault)[0]
    #expect(font.face.path.hasSuffix("DejaVuSans.ttf"))
    let layouter = TextLayouter(fonts: fonts)
    let units: [UInt16] = [0x20, 0x064E]
    let p = Paragraph(units: units, offset: 0)
    let arabic = UnicodeProperties.scriptCode(0x0627)
    let attributes = TextAttributes()
    let whole = layouter.shape(p, 0..<2, font, attributes, 0, arabic, false).glyphs
    let apart = layouter.shapeWordByWord(p, 0..<2, font, attributes, arabic)
    #expect(whole.count == 1, "space + fatha is one ligature glyph in DejaVu Sans")
    #expect(apart.count == 2 && apart != whole)
    #expect(fonts.shapesWordsExactly(font))
    // Were Arabic text (up to U+06FF) allowed on the word-by-word path, the check would refuse.
    #expect(!Font.wordShapingIsExact(face: font.hbFace, font: font.hbFont, scalars: [0...0x6FF]))
  }

  /// The cache is used on the fast path, bounded, and a layout with it equals one without.
  @Test func theCacheServesRepeatedWordsAndStaysBounded() throws {
    let fonts = FontCollection(cacheFile: nil)
    let layouter = TextLayouter(fonts: fonts)
    let text = AttributedText("2 x Latte 4.50\n1 x Latte 4.50\n3 x Bagel 2.25 2.25")
    _ = try layouter.layout(text, width: 186)
    #expect(layouter.words.hits > 0 && layouter.words.misses > 0)
    #expect(layouter.words.count == layouter.words.misses, "one entry per distinct word and space run")
    let small = WordShapeCache(capacity: 3)
    let style = WordShapeCache.Style(
      font: .init(font: try fonts.chain(for: .receiptDefault)[0]), size: 10, horizontalScale: 1, verticalScale: 1,
      language: nil, ligatures: true, script: 0)
    for word in ["a", "b", "c", "d"] {
      _ = small.glyphs(for: WordShapeCache.Word(ArraySlice(word.utf16)), in: small.words(of: style)) { [] }
    }
    #expect(small.count == 1, "emptied when full, then the new word kept")
    // Packed and long words are told apart exactly.
    let words = [
      "", "a", "ab", "ba", "abcdefghijkl", "abcdefghijklm", "abcdefghijkm", String(repeating: "x", count: 40),
    ]
    let keys = words.map { WordShapeCache.Word(ArraySlice($0.utf16)) }
    #expect(Set(keys).count == words.count)
    #expect(
      WordShapeCache.Word(ArraySlice("abcdefghijklm".utf16)) == WordShapeCache.Word(ArraySlice("abcdefghijklm".utf16)))
  }
}
