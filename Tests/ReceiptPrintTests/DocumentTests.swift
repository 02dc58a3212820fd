import Foundation
import ReceiptLayout
import ReceiptModel
import ReceiptPrint
import ReceiptRender
import ReceiptTestSupport
import Testing

/// Documents IPP clients send, read into pages: page sizes against poppler's (`pdfinfo`) and the
/// raster pages' headers (pages written by Support/raster_writer.py, not by receipt), and every
/// bound holding before pixels are allocated — documents come from the network.
@Suite struct DocumentTests {
  let options = DocumentReadOptions(resolution: 180, paperWidth: Length.mm(80).points)

  @Test func formatsAreToldByTheirBytes() {
    #expect(DocumentFormat.sniff(Data("%PDF-1.7".utf8)) == .pdf)
    #expect(DocumentFormat.sniff(Data("RaS2PwgRaster".utf8)) == .pwgRaster)
    #expect(DocumentFormat.sniff(Data("UNIRAST\0".utf8)) == .urf)
    #expect(DocumentFormat.sniff(Data([0xFF, 0xD8, 0xFF, 0xE0])) == .jpeg)
    #expect(DocumentFormat.sniff(Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])) == .png)
    #expect(DocumentFormat.sniff(Data("\u{FEFF} {\"items\": []}".utf8)) == .order)
    #expect(DocumentFormat.sniff(Data("hello".utf8)) == nil)
  }

  /// PWG (1-bit, gray, RGB) and URF pages: their size from the header, the bars at the ends,
  /// the gray band gray; page ranges pick pages.
  @Test(arguments: [("pwg", "black_1"), ("pwg", "sgray_8"), ("pwg", "srgb_8"), ("urf", "W8"), ("urf", "SRGB24")])
  func rasterPagesAreReadAsTheirHeadersSay(format: String, type: String) throws {
    let file = try IPPClient.rasterPage(format, type: type, dpi: 180, width: 80, length: 143.7)
    let data = try Data(contentsOf: file)
    let pages = try DocumentPages.read(data, format: format == "pwg" ? .pwgRaster : .urf, options: options)
    let page = try #require(pages.first)
    #expect(pages.count == 1 && page.image.width == 567 && page.image.height == 1018)
    #expect(abs(page.length - 1018 * 72 / 180.0) < 0.001 && page.isBilevel == (type == "black_1"))
    #expect(page.image.pixels[0] == 0 && page.image.pixels[page.image.pixels.count - 1] == 0, "the bars are black")
    let middle = page.image.pixels[509 * 567..<510 * 567]
    let gray = type == "black_1" ? Set([0, 255]) : Set([127, 128])
    #expect(Set(middle.map(Int.init)).isSubset(of: gray), "the band: \(Set(middle))")
    #expect(Set(page.image.pixels[200 * 567..<201 * 567]) == [255], "white between")
    var none = options
    none.pageRanges = [2...3]
    #expect(throws: PrintError.self) { try DocumentPages.read(data, format: .pwgRaster, options: none) }
  }

  /// A raster header that asks for more than the bounds is refused before its pixels are read
  /// (the document is a few hundred bytes; the header claims gigabytes).
  @Test func aRasterHeaderOverTheBoundsIsRefused() throws {
    let file = try IPPClient.rasterPage("pwg", type: "sgray_8", dpi: 180, width: 80, length: 20)
    var data = try Data(contentsOf: file)
    func put(_ offset: Int, _ value: UInt32) {
      withUnsafeBytes(of: value.bigEndian) { data.replaceSubrange(4 + offset..<4 + offset + 4, with: $0) }
    }
    put(372, 1_000_000)  // width
    put(392, 1_000_000)  // bytes per line
    #expect {
      try DocumentPages.read(data, format: .pwgRaster, options: options)
    } throws: { error in
      "\(error)".contains("16,384")
    }
    #expect(throws: PrintError.self) { try DocumentPages.read(data.prefix(900), format: .pwgRaster, options: options) }
    #expect(throws: PrintError.self) { try DocumentPages.read(Data("RaS2".utf8), format: .pwgRaster, options: options) }
  }

  /// PDF pages drawn by poppler at the printer's resolution: at their own size, or scaled to the
  /// paper's width; the size is poppler's own (`pdfinfo`), rotation applied.
  @Test func pdfPagesHaveTheirOwnSizeOrThePapersWidth() throws {
    let work = try Tool.temporaryDirectory()
    let text = work.appendingPathComponent("t.txt")
    try (1...12).map { "Zeile \($0) Größe ½" }.joined(separator: "\n").write(
      to: text, atomically: true, encoding: .utf8)
    let small = work.appendingPathComponent("small.pdf")
    let pdf = work.appendingPathComponent("page.pdf")
    _ = try Tool.run(
      "pango-view", ["--dpi=72", "--margin=9", "--width=200", "-q", "--output=\(small.path)", text.path])
    _ = try Tool.run("pdftocairo", ["-pdf", "-paper", "A4", "-expand", small.path, pdf.path])
    let poppler = try #require(try Tool.pdfPageSizes(pdf).first)
    let data = try Data(contentsOf: pdf)
    let own = try #require(try DocumentPages.read(data, format: .pdf, options: options).first)
    #expect(abs(own.width - poppler.width) < 72 / 180.0 && abs(own.length - poppler.height) < 72 / 180.0)
    var fit = options
    fit.scaling = .fit
    let fitted = try #require(try DocumentPages.read(data, format: .pdf, options: fit).first)
    #expect(fitted.image.width == 567, "80 mm at 180 dpi")
    #expect(abs(fitted.length - poppler.height * Length.mm(80).points / poppler.width) < 1)
    #expect(throws: PrintError.self) {
      try DocumentPages.read(Data("%PDF-1.7 broken".utf8), format: .pdf, options: options)
    }
  }

  /// Laid out on the roll: a page as wide as the paper prints at its size, a wider one (A4) is
  /// scaled to the paper's width under `auto`, a narrower one is centred; each page is one
  /// continuous page as long as the document's, cut partially between pages.
  @Test func pagesAreLaidOutOnTheRollAtTheirLength() throws {
    let image = GrayImage(width: 10, height: 10, pixels: [UInt8](repeating: 128, count: 100))
    let paper = Length.mm(80).points
    let pages = [
      DocumentPage(image: image, width: paper, length: 400),
      DocumentPage(image: image, width: 595, length: 842),
      DocumentPage(image: image, width: 100, length: 50, isBilevel: true),
    ]
    let laidOut = try DocumentLayout.layOut(pages, setup: PageSetup(), title: "doc")
    let lengths = laidOut.pages.map(\.cutLength)
    #expect(lengths[0] == 400 && abs(lengths[1] - 842 * paper / 595) < 1e-9 && lengths[2] == 50, "\(lengths)")
    #expect(laidOut.pages.map(\.cut) == [.partial, .partial, nil])
    guard case .image(let narrow) = laidOut.pages[2].items.first else { throw RigError("no image") }
    #expect(narrow.rect.x == (paper - 100) / 2 && narrow.dither == .threshold)
    let none = try DocumentLayout.layOut([pages[1]], setup: PageSetup(), scaling: .none, title: "doc")
    #expect(none.pages[0].cutLength == 842, "at its own size (cut to the printable width)")
    #expect(throws: LayoutError.self) {
      try DocumentLayout.layOut(
        [DocumentPage(image: image, width: paper, length: 20_000)], setup: PageSetup(), title: "x")
    }
  }
}
