import Foundation
import ReceiptLayout
import ReceiptModel
import ReceiptRender
import ReceiptTestSupport
import Testing

@Suite struct PDFRendererTests {
  let engine = try! ReceiptLayoutEngine()
  let text = """
    RECEIPT #1042
    2 × Cappuccino\t7.00
    Thank you for shopping with us. Please keep this receipt for returns and exchanges within 30 days.
    """

  func write(_ receipt: LaidOutReceipt) throws -> URL {
    let url = try Tool.temporaryDirectory().appendingPathComponent("r.pdf")
    try PDFRenderer().render(receipt).write(to: url)
    return url
  }

  @Test func pageIs80mmWideAndTextHeightPlus18() throws {
    let document = ReceiptDocument.plainText(text)
    let receipt = try engine.layout(document)
    let height = try engine.measure(AttributedText(text), width: document.pageSetup.contentWidth.points)
    let url = try write(receipt)
    let sizes = try Tool.pdfPageSizes(url)
    try #require(sizes.count == 1)
    #expect(abs(sizes[0].width - 80 / 25.4 * 72) < 0.01)
    #expect(abs(sizes[0].height - (height.rounded(.up) + 18)) < 0.01)
  }

  @Test func pdftotextGetsTheTextBack() throws {
    let url = try write(try engine.layout(.plainText(text)))
    let extracted = try Tool.run("pdftotext", [url.path, "-"]).stdout
    let words = { (s: String) in s.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
    #expect(words(extracted) == words(text))
  }

  @Test func ligaturesExtractAsLetters() throws {
    let line = "office affluent"
    let url = try write(
      try engine.layout(.plainText(line, attributes: TextAttributes(font: FontDescriptor(families: ["DejaVu Serif"])))))
    #expect(try Tool.run("pdftotext", [url.path, "-"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines) == line)
  }

  @Test func twoRunsAreByteEqual() throws {
    let receipt = try engine.layout(.plainText(text))
    #expect(try PDFRenderer().render(receipt) == (try PDFRenderer().render(receipt)))
    // The same bytes because the dates are fixed, not because two renders came in one second:
    // poppler reads the creation and modification dates back.
    let file = try Tool.temporaryDirectory().appendingPathComponent("d.pdf")
    try PDFRenderer().render(receipt).write(to: file)
    let info = try Tool.run("pdfinfo", ["-isodates", file.path]).stdout
    #expect(info.contains("CreationDate:    2000-01-01T00:00:00Z"), "\(info)")
    #expect(info.contains("ModDate:         2000-01-01T00:00:00Z"), "\(info)")
  }

  /// Every stream is compressed at zlib's fastest level, as `PDFRenderer.streamDeflateLevel` says
  /// (cairo alone would ask for 6), and poppler still reads text and image back. The level is read
  /// from each stream's zlib header (RFC 1950, 2.2: FLEVEL, the top two bits of FLG, is 0 for
  /// level 1, 2 for the default), not from our code.
  @Test func everyStreamIsDeflatedAtTheFastestLevel() throws {
    let qr = Barcode(.qr, data: "https://example.com/r/1042", moduleDots: 3)
    let receipt = try engine.layout(ReceiptDocument(blocks: [.text(AttributedText(text)), .barcode(qr)]))
    let url = try write(receipt)
    let headers = PDFStreams.headers(of: [UInt8](try Data(contentsOf: url)))
    #expect(headers.allSatisfy { $0.isZlib }, "\(headers)")
    let levels = headers.map(\.level)
    #expect(PDFRenderer.streamDeflateLevel == 0, "the start-up self-check sees what the file shows")
    #expect(levels.count >= 4, "content, a font, its ToUnicode map, the QR mask: \(levels.count) streams")
    #expect(levels.allSatisfy { $0 == 0 }, "FLEVEL of each stream: \(levels)")
    let extracted = try Tool.run("pdftotext", [url.path, "-"]).stdout
    #expect(extracted.contains("RECEIPT #1042"), "\(extracted)")
    #expect(try Tool.run("pdfimages", ["-list", url.path]).stdout.contains("stencil"))
  }

  /// Each page is white paper under the ink: rendered by poppler onto a transparent background,
  /// not one dot of it is see-through (the white paint that keeps cairo's analysis cheap).
  @Test func aPageIsOpaqueWhitePaper() throws {
    let url = try write(try engine.layout(.plainText(text)))
    let base = try Tool.temporaryDirectory().appendingPathComponent("t")
    #expect(
      try Tool.run("pdftocairo", ["-png", "-transp", "-singlefile", "-r", "30", url.path, base.path]).status == 0)
    let alpha = try Tool.run("pngtopnm", ["-alpha", base.path + ".png"])
    let decoded = try Tool.decodePNM([UInt8](alpha.output), name: "alpha")
    #expect(decoded.width > 50 && decoded.data.count == decoded.width * decoded.height)
    // The last column and row are the page's fraction of a dot (226.77 pt at 30 dpi is 94.5 dots).
    let inner = (0..<decoded.height - 1).flatMap { y in decoded.data[y * decoded.width..<(y + 1) * decoded.width - 1] }
    #expect(inner.allSatisfy { $0 == 255 }, "transparent dots: \(inner.filter { $0 != 255 }.count)")
  }

  @Test func fontsAreEmbeddedSubsets() throws {
    let url = try write(try engine.layout(.plainText(text)))
    let fonts = try Tool.run("pdffonts", [url.path]).stdout.split(separator: "\n").dropFirst(2)
    #expect(!fonts.isEmpty)
    for line in fonts {
      let columns = line.split(separator: " ")
      #expect(columns[0].contains("+"), "subset prefix in \(line)")
      #expect(line.contains(" yes yes "), "embedded and subset: \(line)")
    }
  }
}

/// Dot leaders as a PDF reader sees them: label, dots, price on one line, prices flush right.
@Test func leadersExtractBetweenLabelAndPrice() throws {
  let style = ParagraphStyle(tabStops: [TabStop(location: -0.001, alignment: .right, leader: ".")])
  let text = AttributedText("Subtotal\t9.99\nTotal\t110.79", paragraphStyle: style)
  let receipt = try ReceiptLayoutEngine().layout(ReceiptDocument(blocks: [.text(text)]))
  let url = try Tool.temporaryDirectory().appendingPathComponent("l.pdf")
  try PDFRenderer().render(receipt).write(to: url)
  let lines = try Tool.run("pdftotext", ["-layout", url.path, "-"]).stdout.split(separator: "\n")
    .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && $0 != "\u{0C}" }
  try #require(lines.count == 2)
  #expect(lines[0].hasPrefix("Subtotal") && lines[0].hasSuffix("9.99") && lines[0].contains("....."))
  #expect(lines[1].hasPrefix("Total") && lines[1].hasSuffix("110.79") && lines[1].contains("....."))
  // Words' boxes from poppler: both prices end at the same x.
  let bbox = try Tool.run("pdftotext", ["-bbox", url.path, "-"]).stdout
  let ends = bbox.split(separator: "\n").filter { $0.contains(">9.99<") || $0.contains(">110.79<") }.compactMap {
    line -> Double? in
    guard let r = line.range(of: "xMax=\"") else { return nil }
    return Double(line[r.upperBound...].prefix { $0 != "\"" })
  }
  try #require(ends.count == 2)
  #expect(abs(ends[0] - ends[1]) < 0.02)  // poppler prints boxes to 1/100 pt
}

/// CJK and Arabic receipts extract as their text, Arabic in logical order. poppler splits joined
/// Arabic after non-joining letters (it does the same for Pango's PDF) and wraps it in bidi
/// embedding marks, so Arabic is compared without whitespace and marks, and against Pango.
@Test(arguments: ["ご来店ありがとうございました。合計 ¥1,200", "شكرا لزيارتكم\nالمجموع ١٢٫٥٠"])
func pdftotextGetsCJKAndArabicBack(text: String) throws {
  let dir = try Tool.temporaryDirectory()
  let receipt = try ReceiptLayoutEngine().layout(.plainText(text))
  let url = dir.appendingPathComponent("t.pdf")
  try PDFRenderer().render(receipt).write(to: url)
  let extracted = try Tool.run("pdftotext", [url.path, "-"]).stdout
  let arabic = text.unicodeScalars.contains { (0x600...0x6FF).contains($0.value) }
  guard arabic else {
    let words = { (s: String) in s.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
    #expect(words(extracted) == words(text), "\(extracted)")
    return
  }
  let letters = { (s: String) in
    String(s.unicodeScalars.filter { !$0.properties.isWhitespace && !(0x202A...0x202E).contains($0.value) })
  }
  #expect(letters(extracted) == letters(text), "\(extracted)")
  let source = dir.appendingPathComponent("t.txt")
  try text.write(to: source, atomically: true, encoding: .utf8)
  let pango = dir.appendingPathComponent("p.pdf")
  try Tool.run(
    "pango-view",
    [
      "-q", "--font=DejaVu Sans 10", "--dpi=72", "--hinting=none", "--subpixel-positions", "-o", pango.path,
      source.path,
    ])
  let reference = try Tool.run("pdftotext", [pango.path, "-"]).stdout
  #expect(
    extracted.trimmingCharacters(in: .whitespacesAndNewlines)
      == reference.trimmingCharacters(in: .whitespacesAndNewlines))
}
