import Foundation
import ReceiptModel
import Testing

@testable import ReceiptMarkup

/// Template texts that are equal Swift strings but different characters — "Å" as U+212B
/// ANGSTROM SIGN and as U+00C5 — bind to their own characters: the tables of parsed texts
/// compare bytes, not canonical equivalence.
@Suite struct ExactTextTests {
  @Test func canonicallyEquivalentAttributeValuesBindTheirOwnCharacters() throws {
    let rendered = try TemplateFixture.body(
      #"<qrcode data="\#u{00C5} ${n}"/><qrcode data="\#u{212B} ${n}"/><qrcode data="\#u{00C5} ${n}"/>"#,
      data: #"{"n": 5}"#)
    let first = rendered.document.blocks.compactMap { block -> UInt32? in
      guard case .barcode(let barcode) = block else { return nil }
      return barcode.data.unicodeScalars.first?.value
    }
    #expect(first == [0x00C5, 0x212B, 0x00C5])
  }

  @Test func exactTextsAreEqualOnlyByteForByte() {
    #expect("\u{212B}" == "\u{00C5}")
    #expect(ExactText("\u{212B}") != ExactText("\u{00C5}"))
    #expect(ExactText("a\u{301}\u{316}") != ExactText("a\u{316}\u{301}"))
    #expect(ExactText("Total 5,00 €") == ExactText("Total 5,00 " + "€"))
    var a = Hasher()
    var b = Hasher()
    ExactText("Total").hash(into: &a)
    ExactText(String("xTotal".dropFirst())).hash(into: &b)
    #expect(a.finalize() == b.finalize())
  }
}
