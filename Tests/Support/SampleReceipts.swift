import ReceiptModel

/// Documents several test suites draw, print and decode.
public enum SampleReceipts {
  /// Two pages: text with inverse and underline, a rule, a QR code and a Code 128; a drawer kick
  /// and a full cut after the first page.
  public static func twoPages(setup: PageSetup = PageSetup()) -> ReceiptDocument {
    var title = AttributedText("CORNER CAFÉ ", attributes: TextAttributes(font: FontDescriptor.receiptDefault.bold))
    title.append("PAID", TextAttributes(inverse: true))
    let style = ParagraphStyle(tabStops: [TabStop(location: -0.001, alignment: .right, leader: ".")])
    return ReceiptDocument(
      pageSetup: setup,
      blocks: [
        .text(title), .rule(Rule()),
        .text(AttributedText("2 × Cappuccino\t7.00\nTotal\t10.20", paragraphStyle: style)),
        .barcode(Barcode(.qr, data: "https://example.com/r/1042", moduleDots: 3)), .drawerKick(.pin2), .cut(.full),
        .text(AttributedText("Merchant copy", attributes: TextAttributes(underline: true))),
        .barcode(Barcode(.code128, data: "RCPT-1042")),
      ])
  }
}
