import Foundation
import ReceiptPrint
import ReceiptTestSupport
import Testing

/// Real order data through the shipped binary: a 64-bit id printed and barcoded digit for
/// digit, line totals and sums computed from string prices, and validation that sees inside
/// every `<repeat>` and branch.
@Suite struct CLITemplateTests {
  var receipt: String { (try? Tool.shippedBinary()) ?? "receipt-release-binary-missing" }

  /// An e-commerce export as it comes: 64-bit id, prices as strings, no line totals.
  static let order = """
    {"id": 820982911946154508, "created_at": "2026-11-23T14:05:00+01:00",
     "line_items": [{"title": "Espresso beans 1 kg", "price": "24.90", "quantity": 2},
                    {"title": "Filter papers", "price": "4.80", "quantity": 3}]}
    """

  static let template = """
    <receipt paper="80mm" currency="EUR" locale="de_DE">
      <text>Order $id</text>
      <text>${created_at | datetime:short}</text>
      <repeat items="$line_items" as="line">
        <text>${line.quantity}× ${line.title}: ${line.price * line.quantity | currency}</text>
      </repeat>
      <text>Total ${line_items | sum:'price * quantity' | currency}</text>
      <barcode type="code128" data="$id" module="2"/>
    </receipt>
    """

  @Test func aLargeIdPrintsAndScansDigitForDigit() throws {
    let dir = try Tool.temporaryDirectory()
    try Self.template.write(to: dir.appendingPathComponent("shop.xml"), atomically: true, encoding: .utf8)
    try Self.order.write(to: dir.appendingPathComponent("order.json"), atomically: true, encoding: .utf8)
    let template = dir.appendingPathComponent("shop.xml").path
    for format in ["pdf", "png"] {
      let out = dir.appendingPathComponent("r.\(format)")
      let result = try Tool.run(
        receipt,
        ["render", dir.appendingPathComponent("order.json").path, "--template", template, "-o", out.path, "--strict"])
      #expect(result.status == 0, "\(result.stderr)")
      if format == "pdf" {
        let text = try Tool.run("pdftotext", [out.path, "-"]).stdout.replacingOccurrences(of: "\u{A0}", with: " ")
        #expect(text.contains("Order 820982911946154508"), "\(text)")
        #expect(text.contains("49,80 €") && text.contains("14,40 €") && text.contains("Total 64,20 €"), "\(text)")
        #expect(text.contains("23.11.26, 14:05"), "the order's own offset is kept: \(text)")
      } else {
        let scan = try Tool.run("zbarimg", ["--quiet", "--raw", out.path])
        #expect(scan.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "820982911946154508", "\(scan.stdout)")
      }
    }
  }

  /// A word hyphenated in a PDF: pdftotext (poppler) reads each broken line ending in a hyphen
  /// — a glyph of the text, not a drawing — the pieces make the word again, and every break is
  /// one German hyphenation allows (PyHyphen reading Debian's dictionary).
  @Test func aHyphenatedWordIsTextInThePDFBrokenWhereGermanAllows() throws {
    let dir = try Tool.temporaryDirectory()
    let word = "Donaudampfschifffahrtsgesellschaftskapitän"
    try """
    <receipt paper="58mm" locale="de_DE"><text hyphens="auto" font="DejaVu Sans 16">\(word)</text></receipt>
    """.write(to: dir.appendingPathComponent("word.xml"), atomically: true, encoding: .utf8)
    try "{}".write(to: dir.appendingPathComponent("order.json"), atomically: true, encoding: .utf8)
    let pdf = dir.appendingPathComponent("word.pdf")
    let result = try Tool.run(
      receipt,
      [
        "render", dir.appendingPathComponent("order.json").path, "--template",
        dir.appendingPathComponent("word.xml").path, "-o", pdf.path,
      ])
    #expect(result.status == 0, "\(result.stderr)")
    // -layout: line by line as printed (plain pdftotext joins a word hyphenated at a line's end,
    // which it does only for a real hyphen glyph).
    let lines = try Tool.run("pdftotext", ["-layout", pdf.path, "-"]).stdout.split(separator: "\n")
      .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && $0 != "\u{0C}" }
    try #require(lines.count >= 2, "the word is broken over lines: \(lines)")
    #expect(lines.dropLast().allSatisfy { $0.hasSuffix("-") }, "each broken line ends in a hyphen: \(lines)")
    let pieces = lines.dropLast().map { String($0.dropLast()) } + [lines.last!]
    #expect(pieces.joined() == word, "\(pieces)")
    let joined = try Tool.run("pdftotext", [pdf.path, "-"]).stdout
    #expect(joined.contains(word), "poppler takes the line-end hyphens for hyphens and joins the word: \(joined)")
    let dictionary = "/usr/share/hyphen/hyph_de_DE.dic"
    let allowed = Set(try HyphenationOracle.positions(of: [word], dictionary: dictionary)[0])
    var offset = 0
    for piece in pieces.dropLast() {
      offset += piece.count
      #expect(allowed.contains(offset), "a break after \(offset) characters; allowed: \(allowed.sorted())")
    }
  }

  @Test func validateSeesInsideRepeatsAndBranches() throws {
    let dir = try Tool.temporaryDirectory()
    let path = dir.appendingPathComponent("t.xml")
    try """
    <receipt>
      <repeat items="$items"><text>${item.price | curency}</text></repeat>
    </receipt>
    """.write(to: path, atomically: true, encoding: .utf8)
    let result = try Tool.run(receipt, ["validate", path.path])
    #expect(result.status == 65)
    #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
    #expect(result.stderr.hasPrefix("receipt: error: t.xml:2:47: unknown formatter 'curency'"), "\(result.stderr)")
  }

  @Test func aWarningThatExplainsAnErrorIsShownBeforeIt() throws {
    let dir = try Tool.temporaryDirectory()
    let path = dir.appendingPathComponent("t.xml")
    try "<receipt><text>No. $number</text>\n<text>${total | currency:EUR}</text></receipt>".write(
      to: path, atomically: true, encoding: .utf8)
    let order = dir.appendingPathComponent("o.json")
    try #"{"total": "see $number"}"#.write(to: order, atomically: true, encoding: .utf8)
    let result = try Tool.run(
      receipt, ["render", order.path, "--template", path.path, "-o", dir.appendingPathComponent("x.pdf").path])
    let lines = result.stderr.split(separator: "\n")
    #expect(result.status == 65)
    #expect(lines.count == 2, "\(result.stderr)")
    #expect(lines.first?.hasPrefix("receipt: warning: t.xml:1:") == true && lines.first?.contains("$number") == true)
    #expect(
      lines.last?.hasPrefix("receipt: error: t.xml:2:") == true
        && lines.last?.contains("currency needs a number") == true)
  }
}

/// `--model` through the shipped binary.
@Suite struct CLIModelTests {
  var receipt: String { (try? Tool.shippedBinary()) ?? "receipt-release-binary-missing" }
  var small: String { Tool.packageRoot.appendingPathComponent("Templates/Examples/small.json").path }

  @Test func aModelSetsTheDotsAndAnUnknownOneIsAUsageError() throws {
    let dir = try Tool.temporaryDirectory()
    let out = dir.appendingPathComponent("r.escpos")
    let result = try Tool.run(receipt, ["render", small, "--model", "epson-tm-t88v", "-o", out.path])
    #expect(result.status == 0, "\(result.stderr)")
    let printed = try ESCPOSDecoder.decode(Data(contentsOf: out), bytesPerLine: 64, dpi: 180)
    #expect(printed.pages.count == 1 && printed.pages[0].width == 512)
    let png = dir.appendingPathComponent("r.png")
    #expect(try Tool.run(receipt, ["render", small, "--model", "epson-tm-t88v", "-o", png.path]).status == 0)
    let image = try Tool.decodePNG(png)
    #expect(image.height == printed.pages[0].height, "the preview is as long as the print, at 180 dpi")
    let unknown = try Tool.run(receipt, ["render", small, "--model", "tm-nope", "-o", out.path])
    #expect(unknown.status == 64)
    #expect(unknown.stderr.contains("unknown printer model 'tm-nope'; known: "), "\(unknown.stderr)")
    #expect(PrinterModel.shipped.allSatisfy { unknown.stderr.contains($0.name) }, "every model is named")
    let paper = try Tool.run(receipt, ["render", small, "--model", "generic-58mm", "--paper", "80mm", "-o", out.path])
    #expect(paper.status == 64 && paper.stderr.contains("takes 58mm paper"), "\(paper.stderr)")
  }
}
