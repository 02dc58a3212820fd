import Foundation
import ReceiptTestSupport
import Testing

/// Every example order in every shipped locale, on 80 and 58 mm: the 1-bit and gray PNGs the
/// shipped binary draws carry the ink poppler draws from the binary's own PDF of the same order.
/// The raster path draws text its own way (glyph runs batched into few cairo calls, coverage
/// cut at 50 %, logos dithered), so a run, a line or an image it loses shows up here as a patch
/// of paper where poppler has ink.
@Suite struct RasterAgreementTests {
  var receipt: String { (try? Tool.shippedBinary()) ?? "receipt-release-binary-missing" }
  static let locales = ["ar_SA", "de_DE", "en_US", "fr_FR", "ja_JP"]
  /// The comparison's cell, in dots: about two 9 pt text lines high.
  static let cell = 24

  /// One JSON line per example order and shipped locale.
  func orders() throws -> (lines: Data, count: Int) {
    let strings = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("../../Templates/Strings").standardizedFileURL
    let languages = try FileManager.default.contentsOfDirectory(atPath: strings.path).map { String($0.prefix(2)) }
    #expect(Set(languages) == Set(Self.locales.map { String($0.prefix(2)) }), "a shipped locale is left out")
    var lines = Data()
    var count = 0
    for example in BatchRenderTests.examples {
      let order = try #require(
        try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: example))) as? [String: Any])
      for locale in Self.locales {
        var localized = order
        localized["locale"] = locale
        lines += try JSONSerialization.data(withJSONObject: localized) + Data("\n".utf8)
        count += 1
      }
    }
    return (lines, count)
  }

  /// Darkness summed over each cell of a decoded PNG's top-left `width`×`height`, in 255ths of
  /// a dot (a black dot of a 1-bit image is 255). Works on bytes: the tests build for debugging.
  func darkness(_ image: (width: Int, height: Int, bits: Int, data: [UInt8]), width: Int, height: Int) -> [Int] {
    let columns = (width + Self.cell - 1) / Self.cell
    var cells = [Int](repeating: 0, count: columns * ((height + Self.cell - 1) / Self.cell))
    let stride = image.bits == 1 ? (image.width + 7) / 8 : image.width
    image.data.withUnsafeBufferPointer { data in
      cells.withUnsafeMutableBufferPointer { cells in
        for y in 0..<height {
          let row = data.baseAddress! + y * stride
          let first = (y / Self.cell) * columns
          if image.bits == 1 {
            // A cell is 3 bytes wide; the bits past `width` are masked off.
            for x in Swift.stride(from: 0, to: width, by: 8) {
              let keep = width - x >= 8 ? 0xFF : 0xFF << (8 - (width - x)) & 0xFF
              cells[first + x / Self.cell] += 255 * (Int(row[x / 8]) & keep).nonzeroBitCount
            }
          } else {
            for x in 0..<width { cells[first + x / Self.cell] += 255 - Int(row[x]) }
          }
        }
      }
    }
    return cells
  }

  @Test(arguments: ["80mm", "58mm"])
  func rastersCarryTheInkPopplerDrawsFromThePDF(paper: String) throws {
    let (lines, count) = try orders()
    let directory = try Tool.temporaryDirectory()
    for (name, options) in [
      ("pdf", ["--format", "pdf"]), ("bit", ["--format", "png"]), ("gray", ["--format", "png", "--gray"]),
    ] {
      let result = try Tool.run(
        receipt, ["render", "-", "-o", directory.path + "/\(name)/", "--paper", paper, "--quiet"] + options,
        stdin: lines)
      #expect(result.status == 0, "\(name): \(result.stderr)")
    }
    for index in 1...count {
      let stem = String(format: "%06d", index)
      let pdf = directory.appendingPathComponent("pdf/\(stem).pdf")
      let poppler = directory.appendingPathComponent("poppler-\(stem)")
      let rendered = try Tool.run("pdftoppm", ["-r", "203", "-gray", "-singlefile", pdf.path, poppler.path])
      #expect(rendered.status == 0, "\(rendered.stderr)")
      let pgm = poppler.appendingPathExtension("pgm")
      // (With `-png` this poppler writes RGB whatever `-gray` says.)
      let popplers = try Tool.decodePNM([UInt8](try Data(contentsOf: pgm)), name: pgm.path)
      for kind in ["bit", "gray"] {
        let image = try Tool.decodePNG(directory.appendingPathComponent("\(kind)/\(stem).png"))
        // poppler rounds the page up to whole dots (640 for 80 mm's 639.4), we round down.
        #expect(abs(image.width - popplers.width) <= 1 && abs(image.height - popplers.height) <= 1)
        let (width, height) = (min(image.width, popplers.width), min(image.height, popplers.height))
        let ours = darkness(image, width: width, height: height)
        let reference = darkness(popplers, width: width, height: height)
        // Measured on good output: cells differ by at most 7 % of their dots (glyph shapes, dither);
        // a glyph run left out makes a cell differ by 25–50 %.
        let area = Double(255 * Self.cell * Self.cell)
        let worst = zip(ours, reference).enumerated().max { abs($0.1.0 - $0.1.1) < abs($1.1.0 - $1.1.1) }!
        let difference = Double(abs(worst.element.0 - worst.element.1)) / area
        let columns = (width + Self.cell - 1) / Self.cell
        #expect(
          difference < 0.15,
          "order \(index) (\(paper), \(kind)): the cell at dots (\(worst.offset % columns * Self.cell), \(worst.offset / columns * Self.cell)) has \(worst.element.0 / 255) dark dots, poppler's \(worst.element.1 / 255)"
        )
      }
    }
  }
}
