import Foundation
import ReceiptLayout
import ReceiptModel
import ReceiptPrint
import ReceiptRender
import ReceiptTestSupport
import Testing

/// PNG, PWG raster, CUPS raster and ESC/POS of one receipt are the same dots, checked with
/// netpbm (PNG) and libcups' raster reader (PWG/CUPS), and the ESC/POS decoder.
@Suite struct EncoderTests {
  let engine = try! ReceiptLayoutEngine()

  /// Two pages: text with inverse and underline, a rule, a QR code and a Code 128; a drawer kick.
  func receipt(setup: PageSetup = PageSetup()) throws -> LaidOutReceipt {
    try engine.layout(SampleReceipts.twoPages(setup: setup))
  }

  @Test func pngPwgCupsRasterAndEscposAreTheSameDots() throws {
    let laidOut = try receipt()
    let pages = try RasterRenderer().render(laidOut)
    #expect(pages.count == 2)
    let dir = try Tool.temporaryDirectory()
    for (i, page) in pages.enumerated() {
      // Size: full paper width, cut length in dots.
      #expect(page.width == 8000 * 203 / 2540)
      #expect(page.height == Int((laidOut.pages[i].cutLength * 203 / 72).rounded(.up)))
      let url = dir.appendingPathComponent("p\(i).png")
      try PNGWriter().encode(page, dpi: 203).write(to: url)
      let png = try Tool.decodePNG(url)
      #expect(png.width == page.width && png.height == page.height && png.bits == 1)
      let samePNG = png.data == page.data
      #expect(samePNG, "PNG page \(i) differs from the raster")
      #expect(page.blackCount > 1000)
    }
    for mode in [PWGRasterWriter.Mode.pwg, .cups] {
      let stream = try PWGRasterWriter(mode: mode).encode(pages, setup: laidOut.pageSetup)
      let read = try RasterStreamReader.read(stream)
      let same = read.map(\.image) == pages
      #expect(same, "\(mode) raster differs")
    }
    let escpos = try ESCPOSDecoder.decode(ESCPOSEncoder().encode(pages, receipt: laidOut), bytesPerLine: 72)
    let columns = RasterRenderer.printableColumns(pageWidth: pages[0].width, setup: laidOut.pageSetup)
    #expect(columns.count == 576)
    #expect(escpos.initialized)
    let sameESCPOS = escpos.pages == pages.map { $0.cropped(x: columns.lowerBound, width: columns.count) }
    #expect(sameESCPOS, "ESC/POS differs from the printable columns")
    #expect(escpos.cuts == [.full, .partial])
    #expect(escpos.drawerKicks.map(\.page) == [0] && escpos.drawerKicks.map(\.pin) == [.pin2])
    // Nothing is drawn outside the printable columns, so ESC/POS loses no dot.
    #expect(escpos.pages.map(\.blackCount) == pages.map(\.blackCount))
  }

  @Test func pwgHeaderMatchesTheCutLength() throws {
    let laidOut = try receipt()
    let pages = try RasterRenderer().render(laidOut)
    let read = try RasterStreamReader.read(try PWGRasterWriter().encode(pages, setup: laidOut.pageSetup))
    #expect(read.count == 2)
    for (i, (header, _)) in read.enumerated() {
      #expect(header.resolution == (203, 203))
      #expect(header.bitsPerPixel == 1 && header.colorSpace == 3)  // black_1: CUPS_CSPACE_K
      #expect(header.width == 639 && header.height == pages[i].height)
      #expect(header.totalPageCount == 2)
      // PageSize is the media in points: 80 mm wide, the media length libcups derives.
      let mediaLength = Double(PWGRasterWriter.mediaLength(dots: pages[i].height, dpi: 203)) / 2540 * 72
      #expect(abs(Double(header.pageSize.width) - 226.77) < 1, "\(header.pageSize)")
      #expect(abs(Double(header.pageSize.length) - mediaLength) <= 1)
      #expect(abs(Double(header.pageSize.length) - laidOut.pages[i].cutLength) <= 1)
    }
  }

  @Test func grayPngAndSgray8PwgAreTheSame() throws {
    let laidOut = try receipt()
    let pages = try RasterRenderer(gray: true).render(laidOut)
    let url = try Tool.temporaryDirectory().appendingPathComponent("g.png")
    try PNGWriter().encode(pages[0], dpi: 203).write(to: url)
    let png = try Tool.decodePNG(url)
    let sameGray = png.bits == 8 && png.data == pages[0].data
    #expect(sameGray, "gray PNG differs from the raster")
    let read = try RasterStreamReader.read(try PWGRasterWriter().encode(pages, setup: laidOut.pageSetup))
    #expect(read[0].header.colorSpace == 18 && read[0].header.bitsPerPixel == 8)  // sgray_8: CUPS_CSPACE_SW
    let sameRead = read.map(\.image) == pages
    #expect(sameRead, "sgray_8 PWG differs")
    // Anti-aliased: there are intermediate grays, unlike the 1-bit page.
    #expect(pages[0].data.contains { $0 > 20 && $0 < 235 })
  }

  @Test func copiesRepeatEveryPageInEveryFormat() throws {
    let laidOut = try receipt()
    let read = try RasterStreamReader.read(try PrintPath.pwgRaster.encode(laidOut, copies: 3))
    #expect(read.count == 6)
    #expect(read.map(\.header.totalPageCount) == Array(repeating: 6, count: 6))
    let once = try RasterRenderer().render(laidOut)
    let same = read.map(\.image) == once + once + once
    #expect(same, "each copy is the same dots")
    let escpos = try ESCPOSDecoder.decode(try PrintPath.escpos.encode(laidOut, copies: 2))
    #expect(escpos.cuts == [.full, .partial, .full, .partial])
    #expect(escpos.drawerKicks.map(\.page) == [0, 2])
    let pdf = try PrintPath.pdf.encode(laidOut, copies: 2)
    let file = try Tool.temporaryDirectory().appendingPathComponent("copies.pdf")
    try pdf.write(to: file)
    #expect(try Tool.run("pdfinfo", [file.path]).stdout.contains("Pages:           4"))
  }

  /// A band is sent as wide as its rightmost dot: found from the right eight bytes at a time,
  /// for every position of the last dot in rows of every length up to 40 bytes (and none).
  @Test func aRowsInkedWidthIsItsRightmostDot() {
    for count in 0...40 {
      var row = [UInt8](repeating: 0, count: count)
      row.withUnsafeBufferPointer { #expect(ESCPOSEncoder.Stream.inkedBytes($0) == 0, "blank, \(count) bytes") }
      for last in 0..<count {
        row = [UInt8](repeating: 0, count: count)
        row[last] = 0x01
        if last > 0 { row[0] = 0x80 }
        row.withUnsafeBufferPointer {
          #expect(ESCPOSEncoder.Stream.inkedBytes($0) == last + 1, "dot in byte \(last) of \(count)")
        }
      }
    }
  }
}
