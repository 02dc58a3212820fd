import ReceiptModel
import ReceiptTestSupport
import Testing

@testable import ReceiptLayout

/// Hyphenation from Debian's LibreOffice dictionaries (hyphen-de, hyphen-fr, hyphen-en-us).
@Suite struct HyphenationTests {
  let engine = try! ReceiptLayoutEngine()

  /// The lines of one text block laid out `width` points wide (DejaVu Sans 9 pt).
  func lines(_ string: String, language: String, hyphens: Hyphenation, width: Double) throws -> [String] {
    let setup = PageSetup(paper: .custom(width: .pt(width + 18), printableWidth: .pt(width + 18)))
    let text = AttributedText(
      string, attributes: TextAttributes(font: FontDescriptor(size: 9), language: language),
      paragraphStyle: ParagraphStyle(hyphenation: hyphens))
    return try engine.page([.text(text)], setup: setup).lines.map { $0.map(\.text).joined() }
  }

  /// The width of a string on one line, unhyphenated.
  func width(_ string: String) throws -> Double {
    let setup = PageSetup(paper: .custom(width: .pt(2000), printableWidth: .pt(2000)))
    let text = AttributedText(string, attributes: TextAttributes(font: FontDescriptor(size: 9)))
    return try engine.page([.text(text)], setup: setup).runs.reduce(0) { $0 + $1.width }
  }

  /// Each line but the last ends with a hyphen, the lines without their hyphens give the word
  /// back, and every break falls on a boundary of the word's German syllabification (Duden:
  /// Do-nau-dampf-schiff-fahrts-ge-sell-schafts-ka-pi-tän), not merely somewhere.
  @Test func germanCompoundsBreakAtTheDictionarysPoints() throws {
    let syllables = ["Do", "nau", "dampf", "schiff", "fahrts", "ge", "sell", "schafts", "ka", "pi", "tän"]
    let word = syllables.joined()
    let boundaries = Set((1..<syllables.count).map { syllables.prefix($0).joined().count })
    for width in [60.0, 90, 120] {
      let result = try lines(word, language: "de", hyphens: .auto, width: width)
      #expect(result.count > 1)
      #expect(result.dropLast().allSatisfy { $0.hasSuffix("-") }, "\(result)")
      let pieces = result.map { $0.hasSuffix("-") ? String($0.dropLast()) : $0 }
      #expect(pieces.joined() == word)
      var offset = 0
      for piece in pieces.dropLast() {
        offset += piece.count
        #expect(boundaries.contains(offset), "a break after '\(word.prefix(offset))' at \(width) pt: \(result)")
      }
    }
    // Where a syllable fits, the line takes it (greedy, as Pango and browsers fill lines): the
    // last of the oracle's points (not ours) that fits.
    let dictionary = try #require(Hyphenator.forLanguage("de")?.path)
    let point = try #require(try HyphenationOracle.positions(of: ["Franzbrötchen"], dictionary: dictionary)[0].last)
    let expected = "Franzbrötchen " + "Franzbrötchen".prefix(point) + "-"
    #expect(
      try lines("Franzbrötchen Franzbrötchen", language: "de", hyphens: .auto, width: try width(expected) + 0.5).first
        == expected)
  }

  @Test func frenchAndEnglishUseTheirOwnDictionaries() throws {
    // The breaks below are the oracle's points: cham-pignons, mush-rooms.
    for (language, word, point) in [("fr", "champignons", 4), ("en", "mushrooms", 4)] {
      let dictionary = try #require(Hyphenator.forLanguage(language)?.path)
      #expect(try HyphenationOracle.positions(of: [word], dictionary: dictionary)[0].contains(point))
    }
    let french = try lines(
      "champignons champignons", language: "fr", hyphens: .auto, width: try width("champignons cham-") + 0.5)
    #expect(french == ["champignons cham-", "pignons"])
    let english = try lines(
      "mushrooms mushrooms", language: "en", hyphens: .auto, width: try width("mushrooms mush-") + 0.5)
    #expect(english == ["mushrooms mush-", "rooms"])
    // The German dictionary does not apply to English text.
    let notGerman = try lines(
      "Franzbrötchen Franzbrötchen", language: "en", hyphens: .auto, width: try width("Franzbrötchen Franzbröt-") + 0.5)
    #expect(notGerman.first == "Franzbrötchen")
  }

  @Test func manualModeBreaksOnlyAtSoftHyphensAndNoneNever() throws {
    let text = "Kaffee Franz\u{AD}brötchen"
    let manual = try lines(text, language: "de", hyphens: .manual, width: try width("Kaffee Franz-") + 0.5)
    #expect(manual.first == "Kaffee Franz\u{AD}-", "\(manual)")
    let none = try lines(text, language: "de", hyphens: .none, width: try width("Kaffee Franz-") + 0.5)
    #expect(none.first == "Kaffee", "\(none)")
    // Without soft hyphens, manual mode does not consult the dictionary.
    let plain = try lines(
      "Kaffee Franzbrötchen", language: "de", hyphens: .manual, width: try width("Kaffee Franzbröt-") + 0.5)
    #expect(plain.first == "Kaffee")
  }

  @Test func aLanguageWithoutADictionaryIsNotHyphenated() throws {
    let result = try lines(
      "Kaffee Franzbrötchen", language: "xx", hyphens: .auto, width: try width("Kaffee Franzbröt-") + 0.5)
    #expect(result == ["Kaffee", "Franzbrötchen"])
  }
}
