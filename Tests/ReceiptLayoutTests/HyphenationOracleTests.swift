import Foundation
import ReceiptModel
import ReceiptTestSupport
import Testing

@testable import ReceiptLayout

/// Hyphenation points against independent oracles reading the same Debian dictionary file
/// libhyphen loaded (``HyphenationOracle``: pyphen for French and English, PyHyphen's own binding
/// of libhyphen's two-level algorithm for German, which pyphen cannot read). Words come from
/// Debian's word lists (`wngerman`, `wfrench`, `wamerican`), chosen by a fixed seed: half with
/// a letter beyond ASCII (where byte and character indexes part: `dégustation`, `Frühstück`,
/// `Größe`), half without; plus words with ligature-prone letter pairs and the ones a byte-indexed
/// reading once got wrong.
@Suite struct HyphenationOracleTests {
  static let listed: [String: [String]] = [
    "de_DE": [
      "Bestellgebühr", "Frühstücksbrötchen", "Größenangabe", "Franzbrötchen", "Schifffahrt", "Auflauf", "Straßenbahn",
      "Süßigkeiten", "Öffnungszeiten", "Äpfel", "Übergröße", "Mehrwertsteuer",
    ],
    "fr_FR": [
      "dégustation", "réutilisable", "Établissement", "électronique", "caractéristique", "pâtisserie", "crème",
      "efficace", "offrande", "affluence", "réfléchissement", "Lefèvre",
    ],
    "en_US": ["coffee", "affluent", "baffling", "office", "café", "naïve", "résumé", "receipt", "takeaway"],
  ]

  /// `count` words of 5 to 40 letters from a word list, half with a non-ASCII letter.
  static func sample(_ list: String, count: Int, seed: UInt64) throws -> [String] {
    let words = try String(contentsOfFile: list, encoding: .utf8).split(separator: "\n").map(String.init)
      .filter { (5...40).contains($0.count) && $0.allSatisfy(\.isLetter) }
    var random = SeededGenerator(defaultSeed: seed)
    let accented = words.filter { $0.unicodeScalars.contains { !$0.isASCII } }
    let plain = words.filter { $0.unicodeScalars.allSatisfy(\.isASCII) }
    let half = accented.isEmpty ? 0 : count / 2
    return (0..<half).map { _ in accented.randomElement(using: &random)! }
      + (0..<(count - half)).map { _ in plain.randomElement(using: &random)! }
  }

  @Test(arguments: [
    ("de_DE", "/usr/share/dict/ngerman"), ("fr_FR", "/usr/share/dict/french"),
    ("en_US", "/usr/share/dict/american-english"),
  ])
  func pointsAreTheDictionarysAsTheOraclesReadIt(language: String, list: String) throws {
    let hyphenator = try #require(Hyphenator.forLanguage(language), "hyphen-\(language.prefix(2)) is installed")
    let words = try Self.sample(list, count: 300, seed: 2_026_112_5) + Self.listed[language, default: []]
    let oracle = try HyphenationOracle.positions(of: words, dictionary: hyphenator.path)
    // libhyphen's own load of the file, and the compiled form the cache keeps of it.
    let cache = HyphenDictionaryCache(directory: try Tool.temporaryDirectory().path)
    _ = Hyphenator.load(path: hyphenator.path, cache: cache)
    let compiled = try #require(Hyphenator.load(path: hyphenator.path, cache: cache))
    #expect(compiled.isCompiled)
    for (form, hyphenator) in [
      ("loaded", try #require(Hyphenator.load(path: hyphenator.path, cache: nil))), ("compiled", compiled),
    ] {
      var wrong: [String] = []
      var points = 0
      for (word, expected) in zip(words, oracle) {
        let units = Array(word.utf16)
        // Ours are UTF-16 offsets; pyphen's are character offsets.
        let ours = hyphenator.points(in: units[...]).map { String(decoding: units[..<$0], as: UTF16.self).count }
        points += expected.count
        if ours != expected { wrong.append("\(word): ours \(ours), oracle \(expected)") }
      }
      #expect(points > 200, "the sample has points to compare (\(points))")
      #expect(wrong.isEmpty, "\(form): \(wrong.count) of \(words.count) words differ: \(wrong.prefix(20))")
    }
  }

  /// Through layout: a word with accents before its break points, wrapped at many widths, breaks
  /// only where pyphen puts a point (the hyphenated line's prefix), never elsewhere.
  @Test func laidOutBreaksFallOnTheOraclesPoints() throws {
    let engine = try ReceiptLayoutEngine()
    let cases = [("fr_FR", "dégustation"), ("fr_FR", "caractéristique"), ("de_DE", "Frühstücksbrötchen")]
    for (language, word) in cases {
      let path = try #require(Hyphenator.forLanguage(language)?.path)
      let points = Set(try HyphenationOracle.positions(of: [word], dictionary: path)[0])
      var seen = Set<Int>()
      for width in stride(from: 30.0, through: 90, by: 2) {
        let setup = PageSetup(paper: .custom(width: .pt(width + 18), printableWidth: .pt(width + 18)))
        let text = AttributedText(
          word, attributes: TextAttributes(font: FontDescriptor(size: 9), language: String(language.prefix(2))),
          paragraphStyle: ParagraphStyle(hyphenation: .auto))
        let lines = try engine.page([.text(text)], setup: setup).lines.map { $0.map(\.text).joined() }
        guard let first = lines.first, first.hasSuffix("-"), lines.count > 1 else { continue }
        let offset = first.dropLast().count
        seen.insert(offset)
        #expect(points.contains(offset), "\(word) at \(width) pt breaks after '\(first)'; oracle: \(points.sorted())")
      }
      #expect(!seen.isEmpty, "\(word) was hyphenated at some width")
    }
  }
}
