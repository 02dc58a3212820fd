import Foundation
import ReceiptTestSupport
import Testing

/// Every text and paragraph property of the template language does what the README says, seen
/// by readers we did not write: poppler's word boxes in the PDF (`pdftotext -bbox-layout`) for
/// positions, widths and line pitch; pdfinfo for the page; netpbm for the 203-dpi PNG's dots.
/// Renders go through the shipped binary. Lengths in points; DejaVu Sans 10 pt is 11.640625 pt
/// a line (README, "How the length is measured").
@Suite struct TemplatePropertyTests {
  static let long =
    "The quick brown fox jumps over the lazy dog and keeps running far beyond the edge of the paper"
  /// 80 mm paper, 72 mm printable and centred, 9 pt margins: the content's left and right edges.
  static let left = (80.0 - 72) / 2 / 25.4 * 72 + 9
  static let right = left + 72 / 25.4 * 72 - 18
  static let line = 11.640625

  func pdf(_ body: String, root: String = "", order: String = "{}") throws -> PDFText {
    try PDFText(pdf: Tool.renderTemplate("<receipt\(root)>\(body)</receipt>", order: order))
  }

  @Test func indentAndTailIndentMoveEveryLinesEdges() throws {
    let plain = try pdf("<text>\(Self.long)</text>")
    let indented = try pdf(#"<text indent="20" tail-indent="30">\#(Self.long)</text>"#)
    #expect(plain.lines.allSatisfy { abs($0.xMin - Self.left) < 0.01 }, "\(plain.lines)")
    #expect(plain.lines.contains { $0.xMax > Self.right - 30 }, "without a tail indent the text reaches further")
    #expect(indented.lines.count > plain.lines.count)
    #expect(indented.lines.allSatisfy { abs($0.xMin - (Self.left + 20)) < 0.01 }, "every line: \(indented.lines)")
    #expect(indented.lines.allSatisfy { $0.xMax <= Self.right - 30 + 0.01 }, "\(indented.lines)")
  }

  @Test func lineAndParagraphSpacingAddToThePitch() throws {
    let plain = try pdf("<text>\(Self.long)</text>")
    let spaced = try pdf(#"<text line-spacing="6">\#(Self.long)</text>"#)
    #expect(abs(plain.lines[1].yMin - plain.lines[0].yMin - Self.line) < 0.01)
    #expect(abs(spaced.lines[1].yMin - spaced.lines[0].yMin - (Self.line + 6)) < 0.01, "\(spaced.lines)")
    #expect(abs(spaced.pageHeight - plain.pageHeight - 2 * 6) < 1.01, "the length grows with it")
    // A bound value with a line feed is two paragraphs: the space comes between them only.
    let order = #"{"note": "First paragraph\nSecond paragraph"}"#
    let paragraphs = try pdf(#"<text paragraph-spacing="10">$note</text>"#, order: order)
    #expect(paragraphs.lines.map(\.text) == ["First paragraph", "Second paragraph"])
    #expect(abs(paragraphs.lines[1].yMin - paragraphs.lines[0].yMin - (Self.line + 10)) < 0.01)
    #expect(abs(paragraphs.pageHeight - ((2 * Self.line + 10).rounded(.up) + 18)) < 0.01, "none after the last")
  }

  @Test func letterSpacingFollowsEveryGrapheme() throws {
    let text = try pdf(#"<text letter-spacing="3">AB CD</text><text>AB CD</text>"#)
    let (spaced, plain) = (text.words[1], text.words[3])
    #expect(spaced.text == "CD" && plain.text == "CD")
    // "A", "B" and the space before "CD" each take 3 pt more.
    #expect(abs(spaced.xMin - plain.xMin - 9) < 0.01, "\(spaced) vs \(plain)")
  }

  @Test func scaleStretchesGlyphsAndLines() throws {
    let text = try pdf(
      #"<text scale-x="2">Wide</text><text>Wide</text><text scale-y="2">Tall</text><text scale="2">Wide</text>"#)
    let (wide, plain, tall, both) = (text.lines[0], text.lines[1], text.lines[2], text.lines[3])
    #expect(abs(wide.width - 2 * plain.width) < 0.01 && abs(wide.height - plain.height) < 0.01, "\(wide) \(plain)")
    #expect(abs(tall.height - 2 * Self.line) < 0.05, "double height: \(tall)")
    #expect(abs(both.height - 2 * Self.line) < 0.05 && abs(both.width - 2 * plain.width) < 0.01, "\(both)")
  }

  @Test func maxLinesEndsTheLastKeptLineWithAnEllipsis() throws {
    let text = try pdf(#"<text max-lines="2">\#(Self.long)</text>"#)
    try #require(text.lines.count == 2, "\(text.lines)")
    #expect(text.lines[1].text.hasSuffix("…"), "\(text.lines[1])")
    #expect(abs(text.pageHeight - ((2 * Self.line).rounded(.up) + 18)) < 0.01)
  }

  @Test func charWrapFillsEveryLineAndLosesNothing() throws {
    let words = try pdf("<text>\(Self.long)</text>")
    let chars = try pdf(#"<text wrap="char">\#(Self.long)</text>"#)
    let joined = chars.lines.map(\.text).joined().replacingOccurrences(of: " ", with: "")
    #expect(joined == Self.long.replacingOccurrences(of: " ", with: ""), "nothing lost: \(joined)")
    // Word wrap ends lines at words; char wrap goes on inside one (`l|azy`, `beyo|nd`).
    let vocabulary = Set(Self.long.split(separator: " ").map(String.init))
    #expect(words.lines.allSatisfy { $0.text.split(separator: " ").allSatisfy { vocabulary.contains(String($0)) } })
    #expect(chars.lines.dropLast().contains { !vocabulary.contains(String($0.text.split(separator: " ").last!)) })
    #expect(chars.lines.dropLast().allSatisfy { $0.xMax > Self.right - 8 }, "full to the edge: \(chars.lines)")
  }

  @Test func directionRTLPutsTheLeadingEdgeOnTheRight() throws {
    let rtl = try pdf(#"<text direction="rtl">Hello world</text>"#)
    let ltr = try pdf(#"<text direction="ltr">Hello world</text>"#)
    #expect(abs(rtl.lines[0].xMax - Self.right) < 0.2 && rtl.lines[0].xMin > Self.left + 50, "\(rtl.lines)")
    #expect(abs(ltr.lines[0].xMin - Self.left) < 0.01, "\(ltr.lines)")
  }

  @Test func tabIntervalAndTabGap() throws {
    let interval = try pdf(#"<text tab-interval="40">A<tab/>B</text>"#)
    #expect(abs(try #require(interval.word("B")).xMin - (Self.left + 40)) < 0.01, "\(interval.words)")
    // A right stop at the edge cannot keep 200 pt from "Total": the amount moves to the next
    // line, still at its stop.
    let gap = try pdf(#"<text tabs="right -0" tab-gap="200">Total<tab/>9.99</text>"#)
    let total = try #require(gap.word("Total"))
    let amount = try #require(gap.word("9.99"))
    #expect(amount.yMin > total.yMax - 0.1 && abs(amount.xMax - Self.right) < 0.2, "\(gap.words)")
    let near = try pdf(#"<text tabs="right -0" tab-gap="20">Total<tab/>9.99</text>"#)
    let (nearTotal, nearAmount) = (try #require(near.word("Total")), try #require(near.word("9.99")))
    #expect(abs(nearTotal.yMin - nearAmount.yMin) < 0.01, "with room for the gap, one line: \(near.words)")
  }

  @Test(arguments: [("top", 0.0), ("center", 0.5), ("bottom", 1.0)])
  func valignPlacesSmallCellsInTheRow(valign: String, at fraction: Double) throws {
    let text = try pdf(#"<row valign="\#(valign)"><text size="20">Big</text><text>small</text></row>"#)
    let big = try #require(text.word("Big"))
    let small = try #require(text.word("small"))
    let expected = big.yMin + (big.height - small.height) * fraction
    #expect(abs(small.yMin - expected) < 0.05, "\(valign): \(small) in \(big)")
  }

  @Test func marginsAndTitle() throws {
    let url = try Tool.renderTemplate(
      #"<receipt margin-top="30" margin-left="30" margin-bottom="20" title="Z-Bon"><text>X</text></receipt>"#)
    let text = try PDFText(pdf: url)
    let x = try #require(text.word("X"))
    #expect(abs(x.xMin - (Self.left - 9 + 30)) < 0.01 && abs(x.yMin - 30) < 0.1, "\(x)")
    #expect(abs(text.pageHeight - (Self.line.rounded(.up) + 30 + 20)) < 0.01, "\(text.pageHeight)")
    let info = try Tool.run("pdfinfo", [url.path]).stdout
    #expect(info.contains("Title:           Z-Bon"), "\(info)")
    let even = try PDFText(pdf: Tool.renderTemplate(#"<receipt margin="20"><text>X</text></receipt>"#))
    #expect(abs(try #require(even.word("X")).xMin - (Self.left - 9 + 20)) < 0.01)
    #expect(abs(even.pageHeight - (Self.line.rounded(.up) + 40)) < 0.01)
    let right = try PDFText(
      pdf: Tool.renderTemplate(#"<receipt margin-right="60"><text>\#(Self.long)</text></receipt>"#))
    #expect(right.lines.allSatisfy { $0.xMax <= Self.right + 9 - 60 + 0.01 }, "\(right.lines)")
  }

  @Test func languageChoosesTheHyphenationDictionary() throws {
    let word = "Donaudampfschifffahrtsgesellschaftskapitän"
    let url = try Tool.renderTemplate(
      #"<receipt paper="58mm" locale="en_US"><text hyphens="auto" language="de" font="DejaVu Sans 16">\#(word)</text></receipt>"#
    )
    let lines = try Tool.run("pdftotext", ["-layout", url.path, "-"]).stdout.split(separator: "\n")
      .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && $0 != "\u{0C}" }
    try #require(lines.count >= 2, "\(lines)")
    let allowed = Set(try HyphenationOracle.positions(of: [word], dictionary: "/usr/share/hyphen/hyph_de_DE.dic")[0])
    var offset = 0
    for piece in lines.dropLast() {
      #expect(piece.hasSuffix("-"))
      offset += piece.count - 1
      #expect(allowed.contains(offset), "a German point: \(offset) in \(allowed.sorted())")
    }
  }

  @Test func joinAndDatetime() throws {
    let order = #"{"tags": ["a", "b", "c"], "at": "2026-11-23T14:05:00Z"}"#
    let text = try pdf(
      #"<text>${tags | join:' / '}</text><text>${tags | join}</text><text>${at | datetime:yyyy-MM-dd HH:mm}</text>"#,
      root: #" timezone="UTC""#, order: order)
    #expect(text.lines.map(\.text) == ["a / b / c", "a, b, c", "2026-11-23 14:05"], "\(text.lines)")
  }
}

/// The properties that draw — decorations, rules, codes, dithering — checked in the 203-dpi
/// 1-bit PNG as netpbm decodes it, and codes as zbar reads them.
@Suite struct TemplateDrawingTests {
  /// A 1-bit page as netpbm reads it.
  struct Bitmap {
    let width: Int
    let height: Int
    let data: [UInt8]
    init(_ png: URL) throws {
      let decoded = try Tool.decodePNG(png)
      try #require(decoded.bits == 1)
      (width, height, data) = (decoded.width, decoded.height, decoded.data)
    }
    func black(_ x: Int, _ y: Int) -> Bool {
      data[y * ((width + 7) / 8) + x / 8] & (0x80 >> UInt8(x % 8)) != 0
    }
    /// The runs of black dots in row `y`: (start, length).
    func runs(_ y: Int) -> [(start: Int, length: Int)] {
      var result: [(Int, Int)] = []
      var x = 0
      while x < width {
        if black(x, y) {
          let start = x
          while x < width, black(x, y) { x += 1 }
          result.append((start, x - start))
        } else {
          x += 1
        }
      }
      return result
    }
    var inkedRows: [Int] { (0..<height).filter { y in (0..<width).contains { black($0, y) } } }
    /// Bands of consecutive inked rows: (first row, count).
    var bands: [(first: Int, count: Int)] {
      var result: [(Int, Int)] = []
      for y in inkedRows {
        if let last = result.last, last.0 + last.1 == y {
          result[result.count - 1].1 += 1
        } else {
          result.append((y, 1))
        }
      }
      return result
    }
  }

  func png(_ body: String, root: String = "") throws -> (Bitmap, URL) {
    let url = try Tool.renderTemplate("<receipt\(root)>\(body)</receipt>", format: "png")
    return (try Bitmap(url), url)
  }

  @Test func underlineStrikethroughAndInverse() throws {
    let (plain, _) = try png("<text>Decorated text</text>")
    let rows = plain.inkedRows
    let (top, bottom) = (try #require(rows.first), try #require(rows.last))
    let inkWidth =
      (top...bottom).flatMap { y in plain.runs(y).map { $0.start + $0.length } }.max()!
      - (top...bottom).flatMap { y in plain.runs(y).map(\.start) }.min()!
    func lineRows(_ bitmap: Bitmap) -> [Int] {
      bitmap.inkedRows.filter { y in bitmap.runs(y).contains { $0.length >= inkWidth * 9 / 10 } }
    }
    #expect(lineRows(plain).isEmpty, "plain text has no rule through it")
    let (underlined, _) = try png(#"<text underline="true">Decorated text</text>"#)
    let under = lineRows(underlined)
    // "Decorated text" has no descender: its last inked row is the baseline's.
    #expect(!under.isEmpty && under.allSatisfy { $0 > bottom }, "below the baseline: \(under), text \(top)…\(bottom)")
    let (struck, _) = try png(#"<text strikethrough="true">Decorated text</text>"#)
    let through = lineRows(struck)
    #expect(
      !through.isEmpty && through.allSatisfy { (0.3...0.75).contains(Double($0 - top) / Double(bottom - top)) },
      "through the middle: \(through) in \(top)…\(bottom)")
    let (inverse, _) = try png(#"<text inverse="true">Decorated text</text>"#)
    let band = try #require(inverse.bands.first)
    let black = (band.first..<band.first + band.count).map { y in inverse.runs(y).map(\.length).reduce(0, +) }
    #expect(Double(black.reduce(0, +)) / Double(band.count * inkWidth) > 0.6, "white on a black band")
  }

  @Test func ruleStylesThicknessAndPadding() throws {
    let (solid, _) = try png(#"<rule thickness="3"/>"#)
    let band = try #require(solid.bands.first)
    #expect(solid.bands.count == 1 && (8...9).contains(band.count), "3 pt at 203 dpi: \(solid.bands)")
    #expect(solid.runs(band.first).count == 1 && solid.runs(band.first)[0].length > 500, "across the content")
    let (dashed, _) = try png(#"<rule style="dashed"/>"#)
    let dashes = try #require(dashed.bands.first)
    #expect(dashed.runs(dashes.first).count >= 5, "dashes")
    let (double, _) = try png(#"<rule style="double"/>"#)
    #expect(double.bands.count == 2, "two lines: \(double.bands)")
    let tight = try PDFText(pdf: Tool.renderTemplate(#"<receipt><rule padding="0"/><text>x</text></receipt>"#))
    let padded = try PDFText(pdf: Tool.renderTemplate(#"<receipt><rule padding="10"/><text>x</text></receipt>"#))
    #expect(abs(padded.pageHeight - tight.pageHeight - 20) < 0.01, "10 pt above and below")
  }

  /// The PDF draws a dashed rule as one dashed stroke, the rasters as rectangles: poppler finds
  /// the PDF's dashes where the PNG has them, the same length apart.
  @Test func dashedRulesInThePDFAreWhereThePNGHasThem() throws {
    let rule = #"<rule style="dashed" thickness="2"/>"#
    let (ours, _) = try png(rule)
    let pdf = try Tool.renderTemplate("<receipt>\(rule)</receipt>")
    let stem = pdf.deletingLastPathComponent().appendingPathComponent("poppler")
    #expect(try Tool.run("pdftoppm", ["-r", "203", "-mono", "-singlefile", pdf.path, stem.path]).status == 0)
    let converted = try Tool.run("pnmtopng", [stem.appendingPathExtension("pbm").path])
    try converted.output.write(to: stem.appendingPathExtension("png"))
    let poppler = try Bitmap(stem.appendingPathExtension("png"))
    let (band, popplers) = (try #require(ours.bands.first), try #require(poppler.bands.first))
    #expect(ours.bands.count == 1 && poppler.bands.count == 1)
    #expect(abs(band.first - popplers.first) <= 1 && abs(band.count - popplers.count) <= 1)
    let dashes = ours.runs(band.first + band.count / 2)
    let drawn = poppler.runs(popplers.first + popplers.count / 2)
    #expect(dashes.count >= 10 && drawn.count == dashes.count, "\(dashes.count) dashes, poppler \(drawn.count)")
    // Thickness 2 pt: dashes of 6 pt (16.9 dots) 6 pt apart; the last may be cut at the margin.
    for (dash, seen) in zip(dashes, drawn) {
      #expect(abs(dash.start - seen.start) <= 1 && abs(dash.length - seen.length) <= 1, "\(dash) vs \(seen)")
    }
    #expect(dashes.dropLast().allSatisfy { (16...18).contains($0.length) }, "\(dashes)")
  }

  @Test func qrCodeModulesAndBarcodeText() throws {
    let (qr, qrFile) = try png(#"<qrcode data="HELLO-42" module="4"/>"#)
    let scan = try Tool.run("zbarimg", ["--quiet", "--raw", qrFile.path])
    #expect(scan.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "HELLO-42")
    let firstRow = try #require(qr.inkedRows.first)
    let finder = try #require(qr.runs(firstRow).first)
    #expect(finder.length == 7 * 4, "a finder pattern is 7 modules of 4 dots: \(finder.length)")
    for (hri, shown) in [("", true), (#" hri="false""#, false)] {
      let url = try Tool.renderTemplate(#"<receipt><barcode type="code128" data="ABC-123"\#(hri)/></receipt>"#)
      let text = try Tool.run("pdftotext", [url.path, "-"]).stdout
      #expect(text.contains("ABC-123") == shown, "hri\(hri): \(text)")
      let (_, file) = try png(#"<barcode type="code128" data="ABC-123"\#(hri)/>"#)
      #expect(try Tool.run("zbarimg", ["--quiet", "--raw", file.path]).stdout.contains("ABC-123"))
    }
  }

  /// Every symbology the README lists, from a template through the shipped binary's 203-dpi PNG
  /// — the dots a printer prints — read back by zxing-cpp.
  @Test(arguments: [
    ("ean13", "4006381333931", "4006381333931"), ("ean8", "96385074", "96385074"),
    // zxing-cpp reads UPC-A as its EAN-13 form.
    ("upca", "036000291452", "0036000291452"), ("code128", "RCPT-1042/7", "RCPT-1042/7"),
    ("gs1-128", "[01]09501101530003[17]260101", "(01)09501101530003(17)260101"), ("code39", "ORDER42", "ORDER42"),
    ("itf", "12345670", "12345670"), ("qr", "https://example.com/r/1042", "https://example.com/r/1042"),
    ("pdf417", "RCPT 1042 EUR 12.30", "RCPT 1042 EUR 12.30"), ("datamatrix", "RCPT-1042", "RCPT-1042"),
    ("aztec", "RCPT-1042", "RCPT-1042"),
  ])
  func everySymbologyReadsBackFromThe203DpiPNG(type: String, data: String, expected: String) throws {
    let (_, file) = try png(#"<barcode type="\#(type)" data="\#(data)" hri="false"/>"#)
    let texts = try Tool.zxingTexts(pnm: Tool.decodePNG(file))
    #expect(texts.contains(expected), "\(type): zxing read \(texts)")
  }

  @Test func ditherMethodsOfAGrayImage() throws {
    // A 40 % gray square (gray 100 of 255), as a data: URI made by netpbm.
    let dir = try Tool.temporaryDirectory()
    let pgm = dir.appendingPathComponent("g.pgm")
    try Data(Array("P5\n64 64\n255\n".utf8) + [UInt8](repeating: 100, count: 64 * 64)).write(to: pgm)
    let uri = "data:image/png;base64," + (try Tool.run("pnmtopng", [pgm.path]).output).base64EncodedString()
    var shares: [String: Double] = [:]
    var images: [String: [Bool]] = [:]
    let (threshold, _) = try png(#"<image src="\#(uri)" width="20mm" dither="threshold"/>"#)
    let rows = threshold.inkedRows
    let firstRow = try #require(rows.first)
    let columns = try #require(threshold.runs(firstRow).first)
    for method in ["threshold", "ordered", "floyd-steinberg", "atkinson"] {
      let (bitmap, _) = try png(#"<image src="\#(uri)" width="20mm" dither="\#(method)"/>"#)
      let dots = rows.flatMap { y in (columns.start..<columns.start + columns.length).map { bitmap.black($0, y) } }
      images[method] = dots
      shares[method] = Double(dots.filter { $0 }.count) / Double(dots.count)
    }
    #expect(shares["threshold"] == 1, "darker than half: all black")
    for method in ["ordered", "floyd-steinberg", "atkinson"] {
      #expect((0.45...0.8).contains(shares[method]!), "\(method): \(shares[method]!) black for 61 % dark")
    }
    #expect(images["ordered"] != images["floyd-steinberg"] && images["floyd-steinberg"] != images["atkinson"])
  }
}
