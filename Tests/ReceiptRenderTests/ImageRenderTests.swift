import Foundation
import ReceiptLayout
import ReceiptModel
import ReceiptRender
import ReceiptTestSupport
import Testing

/// Logos reach the PDF: checked with poppler's `pdfimages` and by rasterizing the page.
@Suite struct ImageRenderTests {
  /// A black W×H PNG written by Python's zlib (an encoder independent of ours).
  func png(width: Int, height: Int) throws -> Data {
    let script = """
      import struct, sys, zlib
      w, h = \(width), \(height)
      def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
      raw = b''.join(b'\\x00' + b'\\x00' * w for _ in range(h))
      sys.stdout.buffer.write(b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 0, 0, 0, 0))
        + chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b''))
      """
    return try Tool.run("python3", ["-c", script]).output
  }

  @Test func pngLogoIsDrawnAtItsDotSize() throws {
    let logo = try png(width: 120, height: 60)
    let doc = ReceiptDocument(blocks: [.image(ImageBlock(data: logo)), .text(AttributedText("Below the logo"))])
    let receipt = try ReceiptLayoutEngine().layout(doc)
    let dir = try Tool.temporaryDirectory()
    let pdf = dir.appendingPathComponent("logo.pdf")
    try PDFRenderer().render(receipt).write(to: pdf)
    let list = try Tool.run("pdfimages", ["-list", pdf.path]).stdout.split(separator: "\n").dropFirst(2)
    #expect(list.count == 1)
    let columns = list.first.map { $0.split(separator: " ") } ?? []
    #expect(columns.count > 4 && columns[3] == "120" && columns[4] == "60", "\(list)")
    // At 203 dpi, 120 px = 120 dots: the page has a black block 120 dots wide, centred.
    try Tool.run(
      "pdftoppm",
      [
        "-r", "203", "-gray", "-singlefile", "-aa", "no", "-aaVector", "no", pdf.path,
        dir.appendingPathComponent("p").path,
      ])
    let pgm = try Data(contentsOf: dir.appendingPathComponent("p.pgm"))
    let header = String(decoding: pgm.prefix(20), as: UTF8.self).split(whereSeparator: \.isWhitespace)
    let width = Int(header[1])!
    let pixels = [UInt8](pgm.suffix(width * Int(header[2])!))
    let row = 25 + 30  // below the 9 pt (25.4 dot) margin, inside the logo
    let black = (0..<width).filter { pixels[row * width + $0] < 128 }
    #expect(black.count >= 119 && black.count <= 121)
    #expect(abs(Double(black.first! + black.last!) / 2 - Double(width) / 2) < 2)
  }

  /// A JPEG gradient written by netpbm's `pnmtojpeg` is decoded by libjpeg and dithered.
  @Test func jpegLogoIsDecodedAndDithered() throws {
    let dir = try Tool.temporaryDirectory()
    let pgm = dir.appendingPathComponent("g.pgm")
    var bytes = Array("P5\n200 40\n255\n".utf8)
    for _ in 0..<40 { bytes += (0..<200).map { UInt8($0 * 255 / 199) } }
    try Data(bytes).write(to: pgm)
    let jpeg = try Tool.run("pnmtojpeg", ["--quality=95", pgm.path]).output
    #expect(jpeg.starts(with: [0xFF, 0xD8]))
    let doc = ReceiptDocument(blocks: [.image(ImageBlock(data: jpeg, dither: .floydSteinberg))])
    let laidOut = try ReceiptLayoutEngine().layout(doc)
    guard case .image(let placed) = laidOut.pages[0].items[0] else {
      Issue.record("no image")
      return
    }
    #expect(placed.image.width == 200 && placed.image.height == 40)
    let page = try RasterRenderer().render(laidOut)[0]
    let x0 = Int((placed.rect.x * 203 / 72).rounded())
    let y0 = Int((placed.rect.y * 203 / 72).rounded())
    let dots = (0..<40).flatMap { y in (0..<200).map { page.isBlack(x: x0 + $0, y: y0 + y) } }
    let fraction = Double(dots.filter { $0 }.count) / Double(dots.count)
    #expect(abs(fraction - 0.5) < 0.08, "a black-to-white gradient dithers to about half black: \(fraction)")
    // Dithered, not thresholded: the middle columns mix black and white.
    let middle = (0..<40).flatMap { y in (90..<110).map { dots[y * 200 + $0] } }
    #expect(middle.contains(true) && middle.contains(false))
  }
}
