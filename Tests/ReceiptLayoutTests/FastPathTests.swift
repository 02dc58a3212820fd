import ReceiptModel
import Testing

@testable import ReceiptLayout

/// The Latin fast itemization path must give exactly what the general path gives.
@Suite struct FastPathTests {
  let fast = try! ReceiptLayoutEngine(fastItemization: true)
  let general = try! ReceiptLayoutEngine(fastItemization: false)
  let fastWhole = try! ReceiptLayoutEngine(fastItemization: true, wordShaping: false)

  func documents() -> [ReceiptDocument] {
    var mixed = AttributedText("Caffè latte × 2\t")
    mixed.append("7,00 EUR", TextAttributes(font: FontDescriptor.receiptDefault.bold, underline: true))
    mixed.append(
      " - grazie! Ünïcödé Œuvre ĳ ©", TextAttributes(font: FontDescriptor(families: ["DejaVu Serif"], size: 9)))
    let style = ParagraphStyle(tabStops: [TabStop(location: -0.001, alignment: .right, leader: ".")])
    return [
      .plainText("Receipts are printed on continuous paper, office affluent flow.\n\nSecond paragraph ffi."),
      ReceiptDocument(blocks: [.text(mixed)]),
      ReceiptDocument(blocks: [.text(AttributedText("Subtotal\t9.99\nTotal\t110.79", paragraphStyle: style))]),
      ReceiptDocument(blocks: [.text(AttributedText("12345 67890 !?#", attributes: TextAttributes(letterSpacing: 1)))]),
      // Punctuation, currency and letterlike signs of the simple path, a narrow no-break space.
      ReceiptDocument(blocks: [
        .text(
          AttributedText(
            "„Grüße“ – ‘Café’… № 12 ™ 1\u{202F}234,56 € ‰ ‹x› • £3 ¥4 ₹5 ₽6 ⁄ 1⁄2 — fin\tSumme 4,50 €",
            paragraphStyle: style))
      ]),
    ]
  }

  @Test func sameLayoutBothWays() throws {
    for document in documents() {
      #expect(try fast.layout(document) == (try general.layout(document)))
      #expect(try fastWhole.layout(document) == (try general.layout(document)))
    }
  }
}
