import ReceiptModel
import ReceiptTestSupport
import Testing

@testable import ReceiptMarkup

/// `TextBuilder` collapses HTML's ASCII white space a byte at a time when a literal is ASCII and
/// a character at a time otherwise. Both must be what the HTML rule gives character by
/// character (written out again here): runs of space, tab, line feed, carriage return and form
/// feed become one space, none at the start; anything else is kept, including a space that
/// carries a combining mark.
@Suite struct WhiteSpaceCollapsingTests {
  static func expected(_ pieces: [String]) -> String {
    var out = ""
    var lastWasSpace = true
    for piece in pieces {
      for c in piece {
        if [" ", "\t", "\n", "\r", "\r\n", "\u{0C}"].contains(c) {
          if !lastWasSpace { out.append(" ") }
          lastWasSpace = true
        } else {
          out.append(c)
          lastWasSpace = false
        }
      }
    }
    while out.last == " " { out.removeLast() }
    return out
  }

  static func collapsed(_ pieces: [String]) -> String {
    var builder = TextBuilder()
    for piece in pieces { builder.appendCollapsing(piece, TextAttributes()) }
    return builder.finished().map(\.0).joined()
  }

  @Test func randomLiteralsCollapseAsTheHTMLRuleSays() {
    var generator = SeededGenerator(defaultSeed: 0xC011_A95E)
    let atoms = [
      " ", "  ", "\t", "\n", "\r", "\r\n", "\u{0C}", "a", "Total", "9.99", "\u{00A0}", "€", " \u{0301}", "日本",
    ]
    for _ in 0..<2_000 {
      let pieces = (0..<Int.random(in: 1...4, using: &generator)).map { _ in
        (0..<Int.random(in: 0...8, using: &generator)).map { _ in atoms.randomElement(using: &generator)! }.joined()
      }
      #expect(Self.collapsed(pieces) == Self.expected(pieces), "\(pieces.debugDescription), \(generator.seedNote)")
    }
  }

  @Test func asciiIndentationBetweenWordsIsOneSpace() {
    #expect(Self.collapsed(["\n      Total\r\n\t  due ", "\n  now  "]) == "Total due now")
    // A prepended mark (U+0600) makes one character of the space after it: a text ending so
    // does not end in a space, though its last byte is one.
    #expect(Self.collapsed(["Nr \u{600} "]) == "Nr \u{600} ")
    // A no-break space is text, and a space under a combining mark is a letter.
    #expect(Self.collapsed(["100\u{00A0}g", "  x \u{0301}y"]) == "100\u{00A0}g x \u{0301}y")
  }

  /// What collapses is found from a character's ASCII value: the answer must be the six
  /// characters' (HTML's ASCII white space, "\r\n" one character).
  @Test func collapsingCharactersAreFoundByTheirASCIIValueAsByTheCharacters() {
    let six: [Character] = [" ", "\t", "\n", "\r\n", "\r", "\u{0C}"]
    var characters = (0..<128).map { Character(Unicode.Scalar(UInt8($0))) }
    let others = ["\u{A0}", "\u{85}", "\u{2028}", "\u{3000}", " \u{301}", "\u{600} ", "é", "日"].map(Character.init)
    characters += others + [Character("\r\n")]
    for c in characters {
      #expect(TextBuilder.collapses(c) == six.contains(c), "\(c.unicodeScalars.map { String($0.value, radix: 16) })")
    }
  }

  /// A bound value is inserted as it is; the literal after it collapses its leading white space
  /// only when the value ends in white space — a space carried by a prepended mark is not.
  @Test func aLiteralAfterABoundValueCollapsesOnlyAfterWhiteSpace() {
    for (value, expected) in [
      ("9,99 ", "9,99 x"), ("9,99", "9,99 x"), ("9,99\n", "9,99\nx"), ("a\u{600} ", "a\u{600}  x"), ("é\t", "é\tx"),
    ] {
      var builder = TextBuilder()
      builder.appendVerbatim(value, TextAttributes())
      builder.appendCollapsing("  x", TextAttributes())
      #expect(builder.finished().map(\.0).joined() == expected, "\(value.debugDescription)")
    }
  }

  /// The text between elements is skipped when it is all collapsing white space: read from its
  /// bytes, the answer must be the one character by character gives.
  @Test func whiteSpaceBetweenElementsIsFoundByItsBytesAsByItsCharacters() {
    var generator = SeededGenerator(defaultSeed: 47)
    let pieces = [
      " ", "\t", "\n", "\r", "\r\n", "\u{0C}", "\u{0B}", "\u{85}", "\u{A0}", "\u{2028}", "\u{3000}", " \u{0301}",
      "\n\u{0301}", "x", "",
    ]
    var texts = pieces
    for _ in 0..<2_000 {
      texts.append(
        (0..<Int.random(in: 0...6, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined())
    }
    for text in texts {
      #expect(
        TextBuilder.isCollapsible(text) == text.allSatisfy(TextBuilder.collapses),
        "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
    }
  }
}
