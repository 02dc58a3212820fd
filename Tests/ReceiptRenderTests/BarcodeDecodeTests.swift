import Foundation
import ReceiptLayout
import ReceiptModel
import ReceiptRender
import ReceiptTestSupport
import Testing

/// Barcodes encoded by zint during layout and painted as vectors decode with zbar.
@Suite struct BarcodeDecodeTests {
  let engine = try! ReceiptLayoutEngine()

  func decode(_ barcode: Barcode) throws -> [String] {
    let doc = ReceiptDocument(blocks: [.text(AttributedText("Scan me")), .barcode(barcode)])
    let dir = try Tool.temporaryDirectory()
    let pdf = dir.appendingPathComponent("b.pdf")
    try PDFRenderer().render(try engine.layout(doc)).write(to: pdf)
    let png = dir.appendingPathComponent("b")
    // poppler's non-antialiased fill grows every bar by a pixel, which merges 2-dot bars at the
    // printer resolution; rasterize the vector PDF at twice that, anti-aliased.
    try Tool.run("pdftoppm", ["-r", "406", "-png", "-singlefile", pdf.path, png.path])
    let result = try Tool.run("zbarimg", ["--quiet", "--raw", "-Sean8.enable", png.path + ".png"])
    return result.stdout.split(separator: "\n").map(String.init)
  }

  @Test(
    arguments: [
      (Symbology.qr, "https://example.com/r/1042?t=10.20"), (.ean13, "4006381333931"), (.ean8, "96385074"),
      (.upca, "036000291452"), (.code128, "RCPT-1042/7"), (.code39, "ORDER42"), (.itf, "12345670"),
    ])
  func decodes(symbology: Symbology, data: String) throws {
    let decoded = try decode(Barcode(symbology, data: data, moduleDots: symbology.isTwoDimensional ? 4 : 2))
    let expected = symbology == .upca ? ["0" + data, data] : [data]
    #expect(decoded.contains { expected.contains($0) }, "zbar read \(decoded)")
  }

  /// Text beyond ASCII crosses from Swift's UTF-8 into zint (which counts bytes) and back out of
  /// the decoder: every character arrives, in UTF-8 (ECI 26), at every byte length.
  @Test(arguments: ["Café Straße 12 € — 注文 ✓", "Ünïcödé", "ありがとう", "قهوة ٢٫٥"])
  func nonASCIITextSurvivesAQRCode(text: String) throws {
    let decoded = try decode(Barcode(.qr, data: text, moduleDots: 4))
    #expect(decoded.contains(text), "zbar read \(decoded)")
  }

  /// zbar cannot read the stacked and matrix codes; zxing-cpp (an independent decoder) can.
  @Test(
    arguments: [
      (Symbology.pdf417, "RECEIPT 1042 TOTAL 10.20 EUR"), (.datamatrix, "RCPT-1042"),
      (.aztec, "https://example.com/r/1042"),
      (.gs1_128, "[01]09506000134352[10]ABC123"),
    ])
  func decodesWithZXing(symbology: Symbology, data: String) throws {
    let module = symbology.isTwoDimensional ? 3 : 2
    let doc = ReceiptDocument(blocks: [
      .barcode(Barcode(symbology, data: data, moduleDots: module, humanReadable: false))
    ])
    let dir = try Tool.temporaryDirectory()
    let pdf = dir.appendingPathComponent("z.pdf")
    try PDFRenderer().render(try engine.layout(doc)).write(to: pdf)
    try Tool.run("pdftoppm", ["-r", "406", "-gray", "-singlefile", pdf.path, dir.appendingPathComponent("z").path])
    let pgm = try Data(contentsOf: dir.appendingPathComponent("z.pgm"))
    let fields = pgm.prefix(32).split(whereSeparator: { [0x20, 0x0A].contains($0) }).prefix(4)
    let (w, h) = (
      Int(String(decoding: fields[fields.startIndex + 1], as: UTF8.self))!,
      Int(String(decoding: fields[fields.startIndex + 2], as: UTF8.self))!
    )
    let texts = try Tool.zxing(gray: [UInt8](pgm.suffix(w * h)), width: w, height: h).map {
      String($0.split(separator: "\t").last ?? "")
    }
    // zxing reports GS1 data in its human-readable form: (01)…(10)…
    let expected =
      symbology == .gs1_128
      ? data.replacingOccurrences(of: "[", with: "(").replacingOccurrences(of: "]", with: ")") : data
    #expect(texts.contains(expected), "zxing read \(texts)")
  }

  /// In a PDF a matrix code is one image mask of a pixel per module (poppler's `pdfimages`
  /// extracts it: its pixels are zint's modules), not interpolated, and it decodes where a
  /// printer's raster of the PDF would have it (203 dpi, no anti-aliasing); a linear code stays
  /// bars (no image).
  @Test func aMatrixCodeIsAMaskOfItsModulesAndALinearCodeIsBars() throws {
    let qr = Barcode(.qr, data: "https://example.com/r/1042", moduleDots: 3)
    let laidOut = try engine.layout(
      ReceiptDocument(blocks: [.barcode(qr), .barcode(Barcode(.code128, data: "RCPT-7"))]))
    let modules = try #require(laidOut.pages[0].barcodes.first).modules
    let dir = try Tool.temporaryDirectory()
    let pdf = dir.appendingPathComponent("m.pdf")
    try PDFRenderer().render(laidOut).write(to: pdf)
    let list = try Tool.run("pdfimages", ["-list", pdf.path]).stdout.split(separator: "\n").dropFirst(2)
    #expect(list.count == 1, "one image: the QR code's mask, not the Code 128's bars — \(list)")
    let columns = list.first?.split(separator: " ").map(String.init) ?? []
    #expect(columns.count > 9 && columns[2] == "stencil" && columns[9] == "no", "\(list)")  // type, interpolate
    #expect(columns.count > 4 && columns[3] == "\(modules[0].count)" && columns[4] == "\(modules.count)")
    // Image masks come out as PBM (P4): rows of bits, 1 = marked, each row padded to a byte.
    try Tool.run("pdfimages", [pdf.path, dir.appendingPathComponent("x").path])
    let pbm = [UInt8](try Data(contentsOf: dir.appendingPathComponent("x-000.pbm")))
    let header = String(decoding: pbm.prefix(20), as: UTF8.self).split(whereSeparator: \.isWhitespace)
    let (width, height) = (Int(header[1]) ?? 0, Int(header[2]) ?? 0)
    let rowBytes = (width + 7) / 8
    let bits = Array(pbm.suffix(rowBytes * height))
    var gray = ""
    for y in 0..<height {
      for x in 0..<width {
        let byte: UInt8 = bits[y * rowBytes + x / 8]
        gray += byte & (0x80 >> UInt8(x % 8)) != 0 ? "1" : "0"
      }
    }
    let expected = modules.flatMap { $0.map { $0 ? "1" : "0" } }.joined()
    #expect(gray == expected, "the mask's dark pixels are the dark modules")
    let raster = dir.appendingPathComponent("r")
    try Tool.run(
      "pdftoppm", ["-r", "203", "-gray", "-aa", "no", "-aaVector", "no", "-singlefile", pdf.path, raster.path])
    let read = try Tool.run("zbarimg", ["--quiet", "--raw", raster.path + ".pgm"]).stdout
    #expect(read.contains("https://example.com/r/1042"), "zbar read \(read)")
  }

  @Test func barsSitOnWholeDots() throws {
    let page = try engine.layout(ReceiptDocument(blocks: [.barcode(Barcode(.qr, data: "dots", moduleDots: 3))])).pages[
      0]
    let code = try #require(page.barcodes.first)
    let dot = 72.0 / 203
    for value in [code.rect.x, code.rect.y, code.moduleWidth, code.rowHeights[0]] {
      #expect(abs((value / dot).rounded() - value / dot) < 1e-6)
    }
  }
}

/// A QR code in a row cell, centred beside taller text, still sits on the page's dot grid.
@Test func barcodeInACellSitsOnWholePageDots() throws {
  let text = AttributedText("Scan to pay\nTable 12\nThank you")
  let row = Row(
    [Cell(.text(text), width: .weight(1)), Cell(.barcode(Barcode(.qr, data: "pay", moduleDots: 2)))],
    spacing: 5.3, verticalAlignment: .center)
  let page = try ReceiptLayoutEngine().layout(ReceiptDocument(blocks: [.text(AttributedText("Header")), .row(row)]))
    .pages[0]
  let code = try #require(page.barcodes.first)
  let dot = 72.0 / 203
  for value in [code.rect.x, code.rect.y] { #expect(abs((value / dot).rounded() - value / dot) < 1e-6, "\(value)") }
}

extension LaidOutPage {
  /// The glyph runs of the page.
  var runs: [GlyphRun] {
    items.compactMap {
      if case .glyphs(let run) = $0 { return run }
      return nil
    }
  }

  /// The barcodes placed on the page.
  var barcodes: [PlacedBarcode] {
    items.compactMap {
      if case .barcode(let b) = $0 { return b }
      return nil
    }
  }
}
