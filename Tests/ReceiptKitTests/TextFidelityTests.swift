import Foundation
import ReceiptKit
import ReceiptLayout
import ReceiptRender
import ReceiptTestSupport
import Testing

/// Mixed-direction data, digits and faces that lack a style, from template to PDF and raster,
/// checked with poppler's `pdftotext` and by the pixels.
@Suite struct TextFidelityTests {
  let engine = try! ReceiptEngine()

  /// Binds `data` into a one-off template.
  func document(_ template: String, _ data: String, locale: String? = nil) throws -> ReceiptDocument {
    let directory = try Tool.temporaryDirectory()
    try template.write(to: directory.appendingPathComponent("t.xml"), atomically: true, encoding: .utf8)
    return try engine.templateDocument(
      template: "t", data: Data(data.utf8), templates: directory, options: TemplateOptions(locale: locale)
    ).document
  }

  /// `pdftotext` of the document's PDF (`-layout` when asked).
  func pdfText(_ document: ReceiptDocument, layout: Bool = false) throws -> String {
    let pdf = try Tool.temporaryDirectory().appendingPathComponent("r.pdf")
    try engine.render(document, format: .pdf).parts[0].write(to: pdf)
    return try Tool.run("pdftotext", (layout ? ["-layout"] : []) + [pdf.path, "-"]).stdout
  }

  static let bidiControls = Set(
    "\u{200E}\u{200F}\u{202A}\u{202B}\u{202C}\u{202D}\u{202E}\u{2066}\u{2067}\u{2068}\u{2069}".unicodeScalars)

  static let order = #"{"name": "قهوة عربية", "total": 2.26, "street": "12 Harbour Street"}"#
  static let template = """
    <receipt paper="80mm" font="DejaVu Sans 9" currency="AED">
      <text tabs="right -0">$name<tab/>${total | currency}</text>
      <text>@street $street</text>
    </receipt>
    """

  /// A German price's no-break space and a French thousands separator are written as spaces in
  /// a PDF, so each font is embedded once: cairo keeps U+00A0 and U+202F out of its WinAnsi
  /// subset and embedded a second copy of the font (a CID font) for them. Read by poppler.
  @Test func noBreakSpacesDoNotEmbedASecondCopyOfTheFont() throws {
    let document = try document(
      """
      <receipt paper="80mm" font="DejaVu Sans 9">
        <text>Summe 12,50&#160;€ · 1&#8239;234 g</text>
        <text font="DejaVu Sans Bold 9">Gesamt&#160;12,50&#160;€</text>
      </receipt>
      """, "{}")
    let pdf = try Tool.temporaryDirectory().appendingPathComponent("r.pdf")
    try engine.render(document, format: .pdf).parts[0].write(to: pdf)
    let fonts = try Tool.run("pdffonts", [pdf.path]).stdout
    let embedded = fonts.split(separator: "\n").dropFirst(2)  // a header line and a rule
    #expect(embedded.count == 2 && !fonts.contains("CID"), "\(fonts)")
    let text = try pdfText(document)
    #expect(text.contains("Summe 12,50 € · 1 234 g") && text.contains("Gesamt 12,50 €"), "\(text)")
  }

  /// Noncharacters in order data (U+FFFE, U+FDD0, U+1FFFE — valid JSON, refused by cairo as
  /// invalid UTF-8, which failed the whole PDF) are written as replacement characters, each in
  /// its place among the text around it. Read by poppler.
  @Test func noncharactersInDataBecomeReplacementCharactersInThePDFText() throws {
    let document = try document(
      #"<receipt paper="58mm" font="DejaVu Sans 9"><text>$note</text><text>plain</text></receipt>"#,
      #"{"note": "A\uFFFEB \uFDD0 C\ud83f\udffeD"}"#)
    let text = try pdfText(document)
    #expect(text.contains("A\u{FFFD}B \u{FFFD} C\u{1FFFD}D") && text.contains("plain"), "\(text.debugDescription)")
  }

  @Test func arabicDataInAGermanReceiptKeepsItsPlaceAndTheAmountStaysRight() throws {
    let document = try document(
      Self.template.replacingOccurrences(of: "@street", with: "Adresse:"), Self.order, locale: "de_DE")
    let page = try engine.layout(document).pages[0]
    let runs = page.items.compactMap { item -> GlyphRun? in
      if case .glyphs(let run) = item { return run }
      return nil
    }
    let setup = document.pageSetup
    let left = setup.contentOriginX.points
    let right = left + setup.contentWidth.points
    let amount = try #require(runs.first { $0.text.contains("AED") })
    let name = try #require(runs.first { $0.text.contains("قهوة") })
    // The label stays where the template puts it (the leading, left edge), the amount at its stop.
    #expect(abs(amount.origin.x + amount.width - right) < 0.01)
    #expect(abs(name.origin.x - left) < 0.01)
    let figures = try #require(runs.first { $0.text.contains("2,26") })
    #expect(
      figures.origin.y == amount.origin.y && figures.origin.x < amount.origin.x && figures.origin.x > name.origin.x)
    let text = try pdfText(document)
    #expect(text.contains("2,26 AED") && text.contains("Adresse: 12 Harbour Street"), "\(text)")
    let layout = try pdfText(document, layout: true)
    #expect(layout.contains("2,26 AED") && layout.contains("12 Harbour Street"), "\(layout)")
    #expect(!text.unicodeScalars.contains { Self.bidiControls.contains($0) && $0 != "\u{202B}" && $0 != "\u{202C}" })
  }

  @Test func latinDataInAnArabicReceiptIsFoundWholeWithoutBidiControls() throws {
    let document = try document(
      Self.template.replacingOccurrences(of: "@street", with: "العنوان:"), Self.order, locale: "ar_AE")
    let runs = try engine.layout(document).pages[0].items.compactMap { item -> GlyphRun? in
      if case .glyphs(let run) = item { return run }
      return nil
    }
    // The text layer (what a PDF extracts) holds no isolate or mark, whatever the layout used.
    #expect(runs.allSatisfy { !$0.text.unicodeScalars.contains { Self.bidiControls.contains($0) } })
    let street = try #require(runs.first { $0.text.contains("Harbour") })
    let line = runs.filter { $0.origin.y == street.origin.y && !$0.rightToLeft }.sorted { $0.origin.x < $1.origin.x }
    #expect(line.map(\.text).joined() == "12 Harbour Street")
    for text in [try pdfText(document), try pdfText(document, layout: true)] {
      #expect(text.contains("12 Harbour Street"), "\(text)")
      // pdftotext marks right-to-left lines with U+202B…U+202C itself; nothing else is there.
      #expect(
        !text.unicodeScalars.contains { $0 == "\u{2066}" || $0 == "\u{2067}" || $0 == "\u{2068}" || $0 == "\u{2069}" })
    }
  }

  @Test func everyNumberPrintsInTheLocalesDigitsUnlessLatinIsAsked() throws {
    let order = #"{"qty": 12, "number": 1001, "price": 4.5}"#
    let template = """
      <receipt paper="80mm" font="DejaVu Sans 9" currency="EGP"DIGITS>
        <text>$qty|$number|${price | number:2}|${qty * 2}</text>
      </receipt>
      """
    func line(_ digits: String) throws -> String {
      let document = try document(template.replacingOccurrences(of: "DIGITS", with: digits), order, locale: "ar_EG")
      let runs = try engine.layout(document).pages[0].items.compactMap { item -> GlyphRun? in
        if case .glyphs(let run) = item { return run }
        return nil
      }
      return runs.map(\.text).joined()
    }
    let native = try line("")
    for number in ["١٢", "١٠٠١", "٤٫٥٠", "٢٤"] { #expect(native.contains(number), "\(native)") }
    #expect(!native.contains { $0.isASCII && $0.isNumber }, "\(native)")
    let latin = try line(#" digits="latin""#)
    for number in ["12", "1001", "4.50", "24"] { #expect(latin.contains(number), "\(latin)") }
  }

  @Test func boldAndItalicAreSynthesizedForAFaceThatHasNeither() throws {
    func ink(_ attributes: String) throws -> Int {
      let document = try document(
        #"<receipt paper="80mm" font="DejaVu Sans 14" locale="ja_JP"><text \#(attributes)>合計 お会計</text></receipt>"#,
        "{}")
      let laidOut = try engine.layout(document)
      let face = laidOut.pages[0].items.compactMap { item -> FontFace? in
        if case .glyphs(let run) = item { return run.font }
        return nil
      }.first
      if attributes.contains("bold") { #expect(face?.synthesizeBold == true) }
      // Counted from the 203-dpi PNG as netpbm decodes it, not from our own raster.
      let png = try Tool.temporaryDirectory().appendingPathComponent("r.png")
      try engine.render(document, format: .png).parts[0].write(to: png)
      let decoded = try Tool.decodePNG(png)
      return decoded.data.reduce(0) { $0 + $1.nonzeroBitCount }
    }
    let regular = try ink("")
    let bold = try ink(#"bold="true""#)
    // WenQuanYi Micro Hei has one weight: emboldened outlines are measurably heavier.
    #expect(Double(bold) > Double(regular) * 1.15, "regular \(regular), bold \(bold) black dots")
    // Slanting keeps the ink about the same but moves it: the images differ.
    let italic = try ink(#"italic="true""#)
    #expect(abs(Double(italic) - Double(regular)) < Double(regular) * 0.1)
  }

  /// Black dots none of whose four neighbours is black: what dithering leaves, and what glyph
  /// outlines almost never have.
  static func isolatedShare(_ image: RasterImage) -> Double {
    var black = 0
    var isolated = 0
    for y in 0..<image.height {
      for x in 0..<image.width where image.isBlack(x: x, y: y) {
        black += 1
        let neighbours = [(x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)].filter { nx, ny in
          nx >= 0 && ny >= 0 && nx < image.width && ny < image.height && image.isBlack(x: nx, y: ny)
        }
        if neighbours.isEmpty { isolated += 1 }
      }
    }
    return black == 0 ? 0 : Double(isolated) / Double(black)
  }

  @Test func emojiAreInThePDFTextAndOutlinesNotDitherIn1BitOutput() throws {
    let document = try document(
      #"<receipt paper="80mm" font="DejaVu Sans 24"><text>☕🍰🎉</text></receipt>"#, "{}")
    // The PDF shows color emoji and its text layer holds them.
    let text = try pdfText(document)
    #expect(text.contains("☕") && text.contains("🍰") && text.contains("🎉"), "\(text)")
    // 1-bit output (what a thermal printer gets) draws them from monochrome fonts.
    let png = try Tool.temporaryDirectory().appendingPathComponent("r.png")
    try engine.render(document, format: .png).parts[0].write(to: png)
    let decoded = try Tool.decodePNG(png)
    let image = RasterImage(width: decoded.width, height: decoded.height, bitsPerPixel: 1, data: decoded.data)
    var color = document
    color.pageSetup.monochrome = false
    let dithered = try RasterRenderer().render(try engine.layout(color))[0]
    #expect(Self.isolatedShare(dithered) > 0.05, "the color emoji dithered: \(Self.isolatedShare(dithered))")
    #expect(Self.isolatedShare(image) < 0.03, "outlines: \(Self.isolatedShare(image))")
    var mono = document
    mono.pageSetup.monochrome = true
    let fonts = try engine.layout(mono).pages[0].items.compactMap { item -> FontFace? in
      if case .glyphs(let run) = item { return run.font }
      return nil
    }
    #expect(!fonts.isEmpty && fonts.allSatisfy { !$0.isColor })
  }

  @Test func tabbedLinesOn58mmNeverGlueInTheExtractedText() throws {
    let document = try document(
      """
      <receipt paper="58mm" font="DejaVu Sans 9" currency="EUR" locale="de_DE">
        <text tabs="right -0">Bestellung #$number<tab/>$date</text>
        <text tabs="right -0">Rabatt $code<tab/>${discount | currency}</text>
        <row><text>Bestellung #$number</text><text weight="1" align="trailing">$date</text></row>
      </receipt>
      """, #"{"number": 9999, "date": "20.11.2026", "code": "MORGEN10", "discount": -3.28}"#)
    for text in [try pdfText(document), try pdfText(document, layout: true)] {
      for glued in ["#999920", "MORGEN10-3", "MORGEN10−3"] { #expect(!text.contains(glued), "\(text)") }
      #expect(text.contains("20.11.2026") && text.contains("-3,28 €"), "\(text)")
      #expect(!text.contains("20.11.\n"), "the date is whole: \(text)")
    }
  }
}
