import Foundation
import ReceiptLayout
import ReceiptModel
import ReceiptRender
import ReceiptTestSupport
import Testing

/// Raster pages: 1-bit without anti-aliasing, barcodes on whole dots. (PWG, CUPS raster and
/// ESC/POS of these pages are checked in ReceiptPrintTests.)
@Suite struct RasterTests {
  let engine = try! ReceiptLayoutEngine()

  /// Two pages: text with inverse and underline, a rule, a QR code and a Code 128; a drawer kick.
  func receipt(setup: PageSetup = PageSetup()) throws -> LaidOutReceipt {
    try engine.layout(SampleReceipts.twoPages(setup: setup))
  }

  @Test func oneBitPagesHaveNoAntialiasingAndBarcodesOnWholeDots() throws {
    let laidOut = try receipt()
    let page = try RasterRenderer().render(laidOut)[0]
    let code = try #require(laidOut.pages[0].barcodes.first)
    // Every module is a solid 3×3-dot square: the dots under a module centre match the matrix.
    let dot = 72.0 / 203
    let left = Int((code.rect.x / dot).rounded())
    let top = Int((code.rect.y / dot).rounded())
    for (r, row) in code.modules.enumerated() {
      for (c, dark) in row.enumerated() {
        for dy in 0..<3 {
          for dx in 0..<3 { #expect(page.isBlack(x: left + 3 * c + dx, y: top + 3 * r + dy) == dark) }
        }
      }
    }
  }
}

/// zbar reads every symbology it supports from the 1-bit 203-dpi PNG on 58 mm paper, at the
/// smallest module the layout allows (2 dots).
@Suite struct RasterBarcodeTests {
  @Test(
    arguments: [
      (Symbology.qr, "https://example.com/r/1042"), (.ean13, "4006381333931"), (.ean8, "96385074"),
      (.upca, "036000291452"), (.code128, "RCPT-1042"), (.code39, "ORDER42"), (.itf, "12345670"),
    ])
  func zbarDecodesThePNG(symbology: Symbology, data: String) throws {
    let setup = PageSetup(paper: .mm58)
    let doc = ReceiptDocument(pageSetup: setup, blocks: [.barcode(Barcode(symbology, data: data, moduleDots: 2))])
    let laidOut = try ReceiptLayoutEngine().layout(doc)
    let page = try RasterRenderer().render(laidOut)[0]
    #expect(page.width == 5800 * 203 / 2540)
    let url = try Tool.temporaryDirectory().appendingPathComponent("b.png")
    try PNGWriter().encode(page, dpi: 203).write(to: url)
    let result = try Tool.run("zbarimg", ["--quiet", "--raw", "-Sean8.enable", url.path])
    let decoded = result.stdout.split(separator: "\n").map(String.init)
    let expected = symbology == .upca ? ["0" + data, data] : [data]
    #expect(decoded.contains { expected.contains($0) }, "zbar read \(decoded)")
  }

  /// PDF417, DataMatrix and Aztec from the same 203-dpi PNG, read by zxing-cpp via netpbm.
  @Test(arguments: [(Symbology.pdf417, "RCPT 1042 10.20"), (.datamatrix, "RCPT-1042"), (.aztec, "RCPT-1042")])
  func zxingDecodesThePNG(symbology: Symbology, data: String) throws {
    let doc = ReceiptDocument(pageSetup: PageSetup(paper: .mm58), blocks: [.barcode(Barcode(symbology, data: data))])
    let page = try RasterRenderer().render(try ReceiptLayoutEngine().layout(doc))[0]
    let url = try Tool.temporaryDirectory().appendingPathComponent("z.png")
    try PNGWriter().encode(page, dpi: 203).write(to: url)
    #expect(try Tool.zxingTexts(pnm: Tool.decodePNG(url)).contains(data))
  }

  @Test func oneDotModulesAreRefused() {
    #expect(throws: LayoutError.self) {
      try ReceiptLayoutEngine().layout(ReceiptDocument(blocks: [.barcode(Barcode(.qr, data: "x", moduleDots: 1))]))
    }
  }
}

@Test(arguments: [0, 3, 8, 31, 61])
func croppingKeepsEveryDot(offset: Int) throws {
  let receipt = try RasterTests().receipt()
  let page = try RasterRenderer().render(receipt)[0]
  let width = 576 - offset % 5
  let crop = page.cropped(x: offset, width: width)
  for y in stride(from: 0, to: page.height, by: 3) {
    for x in 0..<width where crop.isBlack(x: x, y: y) != page.isBlack(x: offset + x, y: y) {
      Issue.record("dot \(x),\(y) differs after cropping at \(offset)")
      return
    }
  }
}

/// Cropping a 1-bit page keeps every dot of the window, at every bit offset and width, and
/// nothing outside it (dot by dot, as `isBlack` reads them).
@Test func croppingKeepsEveryDotOfTheWindow() {
  var generator = SystemRandomNumberGenerator()
  // Wide enough for the eight-bytes-at-a-time path at every bit offset.
  let (width, height) = (141, 3)
  let bytes = (width + 7) / 8
  let page = RasterImage(
    width: width, height: height, bitsPerPixel: 1,
    data: (0..<(bytes * height)).map { _ in UInt8.random(in: 0...255, using: &generator) })
  for x in 0..<width {
    for w in 1...(width - x) {
      let crop = page.cropped(x: x, width: w)
      let same = (0..<height).allSatisfy { y in
        (0..<w).allSatisfy { crop.isBlack(x: $0, y: y) == page.isBlack(x: x + $0, y: y) }
      }
      #expect(same, "window \(x)..<\(x + w)")
      // The padding bits after the last dot are white.
      let tail = (0..<height).allSatisfy { y in
        (w..<(crop.bytesPerLine * 8)).allSatisfy {
          crop.data[y * crop.bytesPerLine + $0 / 8] & (0x80 >> UInt8($0 % 8)) == 0
        }
      }
      #expect(tail, "window \(x)..<\(x + w): padding")
    }
  }
}
