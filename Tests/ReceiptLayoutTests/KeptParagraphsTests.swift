import Foundation
import ReceiptModel
import ReceiptTestSupport
import Testing

@testable import ReceiptLayout

/// Paragraphs are prepared (itemized, shaped, break points found) once and kept across
/// documents: the next receipt of a batch repeats the header, the footer and most item names.
/// A kept paragraph must lay out exactly as a freshly prepared one, and a document served from
/// the cache must still get its own font warnings.
@Suite struct KeptParagraphsTests {
  /// Receipt-like documents in the shipped locales' scripts, at two widths, with hyphenation,
  /// tabs, bidi and CJK.
  func documents() -> [ReceiptDocument] {
    let tabs = ParagraphStyle(tabStops: [TabStop(location: -0.001, alignment: .right, leader: ".")])
    let german = ParagraphStyle(hyphenation: .auto)
    let texts: [AttributedText] = [
      AttributedText("Caffè latte × 2\t7,00 €\nCroissant\t2,50 €", paragraphStyle: tabs),
      AttributedText(
        "Donaudampfschifffahrtsgesellschaftskapitän Rechnungsbetrag Mehrwertsteuer",
        attributes: TextAttributes(language: "de"), paragraphStyle: german),
      AttributedText("شكرا لزيارتكم — المجموع ٣٤٫٥٠ ر.س", attributes: TextAttributes(language: "ar")),
      AttributedText("ご来店ありがとうございました。領収書 合計 ¥1,280", attributes: TextAttributes(language: "ja")),
      AttributedText("Merci de votre visite ! Total TTC : 12,40 €", attributes: TextAttributes(language: "fr")),
    ]
    return [PageSetup(), PageSetup(paper: .mm58)].map { setup in
      ReceiptDocument(pageSetup: setup, blocks: texts.map { .text($0) })
    }
  }

  @Test func keptParagraphsLayOutAsFreshOnes() throws {
    let kept = try ReceiptLayoutEngine()
    let fresh = try ReceiptLayoutEngine()
    for round in 0..<3 {
      for document in documents() {
        fresh.forgetParagraphs()
        #expect(try kept.layout(document) == (try fresh.layout(document)), "round \(round)")
      }
    }
    let counts = kept.paragraphCounts
    // Each text is prepared once (both widths share it); later rounds are served kept.
    #expect(counts.prepared == 5)
    #expect(counts.kept >= 25)
  }

  /// The cache hashes a text's characters only; texts that differ in style alone (bold, size,
  /// font, language, a run more) are kept apart all the same.
  @Test func textsThatDifferOnlyInStyleAreKeptApart() throws {
    let kept = try ReceiptLayoutEngine()
    let fresh = try ReceiptLayoutEngine()
    let words = "Total 12,40 € Donaudampfschiff"
    var twoRuns = AttributedText("Total ")
    twoRuns.append(
      "12,40 € Donaudampfschiff", TextAttributes(font: FontDescriptor(families: ["DejaVu Sans"], size: 9, weight: 700)))
    let variants: [AttributedText] = [
      AttributedText(words),
      AttributedText(
        words, attributes: TextAttributes(font: FontDescriptor(families: ["DejaVu Sans"], size: 9, weight: 700))),
      AttributedText(words, attributes: TextAttributes(font: FontDescriptor(families: ["DejaVu Sans"], size: 14))),
      AttributedText(words, attributes: TextAttributes(font: FontDescriptor(families: ["DejaVu Sans Mono"], size: 9))),
      AttributedText(
        words, attributes: TextAttributes(language: "de"), paragraphStyle: ParagraphStyle(hyphenation: .auto)),
      twoRuns,
    ]
    for round in 0..<2 {
      for text in variants {
        let document = ReceiptDocument(pageSetup: PageSetup(paper: .mm58), blocks: [.text(text)])
        fresh.forgetParagraphs()
        #expect(try kept.layout(document) == (try fresh.layout(document)), "round \(round)")
      }
    }
    #expect(kept.paragraphCounts.prepared == variants.count)
  }

  @Test func aDocumentServedFromTheCacheStillWarnsOfAMissingFont() throws {
    let engine = try ReceiptLayoutEngine()
    let missing = TextAttributes(font: FontDescriptor(families: ["No Such Font Family", "DejaVu Sans"], size: 9))
    let document = ReceiptDocument(blocks: [.text(AttributedText("Total 9,99", attributes: missing))])
    let first = try engine.layout(document)
    let second = try engine.layout(document)
    #expect(engine.paragraphCounts.kept >= 1)
    #expect(first.warnings.contains { $0.contains("No Such Font Family") })
    #expect(second.warnings == first.warnings)
    // A descriptor checked for one document (the second: its text was kept) is checked again
    // for the next.
    #expect(try engine.layout(document).warnings == first.warnings)
  }

  /// A font file named by path is allowed per document (its templates directory): a kept text
  /// allowed in one document is refused in the next that does not allow its directory, and a
  /// document of the same text with the same font warns every time.
  @Test func aKeptTextsFontFileIsCheckedForEachDocument() throws {
    let directory = try Tool.temporaryDirectory()
    let copy = directory.appendingPathComponent("Mine.ttf")
    try FileManager.default.copyItem(atPath: "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", toPath: copy.path)
    let attributes = TextAttributes(font: FontDescriptor(families: [copy.path], size: 9))
    let texts = ["Total 9,99", "Danke"].map { AttributedText($0, attributes: attributes) }
    var allowed = ReceiptDocument(blocks: texts.map { .text($0) })
    allowed.fontDirectories = [directory.path]
    let engine = try ReceiptLayoutEngine()
    let first = try engine.layout(allowed)
    let refused = ReceiptDocument(blocks: texts.map { .text($0) })
    #expect(throws: LayoutError.self) { try engine.layout(refused) }
    #expect(try engine.layout(allowed) == first)
    #expect(engine.paragraphCounts.kept >= 2)
  }

  /// A batch's or a day's receipts: the header in every one, an order's own text once. When the
  /// table fills, it lets go of the texts not asked for again and keeps the header (a table that
  /// started again empty prepared the whole working set again every ~900 receipts).
  @Test func aFullCacheKeepsWhatIsAskedForAgain() throws {
    let engine = try ReceiptLayoutEngine()
    let limit = TextLayouter.keptParagraphLimit
    let header = AttributedText("Café Rosa — Hauptstraße 1, 10115 Berlin")
    for i in 0..<(limit + 10) {
      _ = try engine.layout(ReceiptDocument(blocks: [.text(header), .text(AttributedText("item \(i)"))]))
    }
    #expect(engine.paragraphCounts.prepared == limit + 11, "the header once, each item once")
    // The first texts, asked for once, were let go when the table filled: prepared afresh.
    _ = try engine.layout(ReceiptDocument(blocks: [.text(AttributedText("item 0"))]))
    #expect(engine.paragraphCounts.prepared == limit + 12)
    // The header and the last ones are still kept.
    _ = try engine.layout(ReceiptDocument(blocks: [.text(header), .text(AttributedText("item \(limit + 9)"))]))
    #expect(engine.paragraphCounts.prepared == limit + 12)
  }

  /// A working set larger than half the table: it starts again empty rather than prune often.
  @Test func aWorkingSetLargerThanHalfTheCacheStartsItAgain() throws {
    let engine = try ReceiptLayoutEngine()
    let limit = TextLayouter.keptParagraphLimit
    let texts = (0..<limit).map { AttributedText("item \($0)") }
    for _ in 0..<2 { for text in texts { _ = try engine.layout(ReceiptDocument(blocks: [.text(text)])) } }
    #expect(engine.paragraphCounts.prepared == limit, "all kept, each asked for twice")
    _ = try engine.layout(ReceiptDocument(blocks: [.text(AttributedText("one more"))]))
    _ = try engine.layout(ReceiptDocument(blocks: [.text(texts[0])]))
    #expect(engine.paragraphCounts.prepared == limit + 2, "the table started again empty")
  }

  @Test func longTextsArePreparedButNotKept() throws {
    let engine = try ReceiptLayoutEngine()
    let long = ReceiptDocument(
      blocks: [.text(AttributedText(String(repeating: "word ", count: TextLayouter.keptTextLimit / 5 + 1)))])
    _ = try engine.layout(long)
    _ = try engine.layout(long)
    #expect(engine.paragraphCounts.kept == 0)
    // Texts up to the limit in all are kept; past it the cache starts again.
    let count = TextLayouter.keptUnitsLimit / 4000 + 2
    let texts = (0..<count).map { AttributedText(String(format: "%04d", $0) + String(repeating: "x", count: 3996)) }
    for text in texts { _ = try engine.layout(ReceiptDocument(blocks: [.text(text)])) }
    let before = engine.paragraphCounts.prepared
    _ = try engine.layout(ReceiptDocument(blocks: [.text(texts[0])]))
    #expect(engine.paragraphCounts.prepared == before + 1, "the first was dropped when the units ran out")
    _ = try engine.layout(ReceiptDocument(blocks: [.text(texts[count - 1])]))
    #expect(engine.paragraphCounts.prepared == before + 1, "the last is kept")
  }

  /// "Å" as U+212B ANGSTROM SIGN and as U+00C5 are equal Swift strings of equal length: a kept
  /// text found by string equality gave one the other's layout, and its PDF text layer the
  /// other character. Kept texts are told apart by their bytes.
  @Test func canonicallyEquivalentTextsAreKeptApart() throws {
    let engine = try ReceiptLayoutEngine()
    func scalars(_ text: String) throws -> [UInt32] {
      let laid = try engine.layout(ReceiptDocument(blocks: [.text(AttributedText(text))]))
      return laid.pages.flatMap(\.items).flatMap { item -> [UInt32] in
        guard case .glyphs(let run) = item else { return [] }
        return run.text.unicodeScalars.map(\.value)
      }
    }
    #expect(try scalars("\u{00C5} 5 kg").contains(0x00C5))
    #expect(try scalars("\u{212B} 5 kg").contains(0x212B))
    #expect(try scalars("\u{00C5} 5 kg").contains(0x00C5))
  }
}
