import Foundation
import ReceiptLayout
import ReceiptModel
import ReceiptPrint
import ReceiptRender
import ReceiptTestSupport
import Testing

/// Printer formats checked by readers we did not write: PWG and CUPS raster by a reader written
/// from PWG 5102.4 (`Tests/Support/pwg_reader.py`, no libcups), compared dot for dot with the PNG
/// as netpbm decodes it; ESC/POS against the byte layouts of Epson's command reference and
/// against python-escpos' own output for the same commands. (Our ESCPOSDecoder and libcups'
/// reader would agree with a writer that shared their mistake.)
@Suite struct IndependentOracleTests {
  static let engine = try! ReceiptLayoutEngine()

  /// A receipt with text, a rule, a QR code, a partial cut, a second page with a drawer kick
  /// on pin 5 and a full cut.
  static func receipt() throws -> LaidOutReceipt {
    let blocks: [Block] = [
      .text(AttributedText("Corner Café\nTotal\t11.04 €")), .rule(Rule(style: .solid, thickness: 1, padding: 3)),
      .barcode(Barcode(.qr, data: "https://example.com/r/1042", moduleDots: 4)), .drawerKick(.pin2), .cut(.partial),
      .text(AttributedText("Kitchen copy")), .drawerKick(.pin5), .cut(.full),
    ]
    return try engine.layout(ReceiptDocument(blocks: blocks))
  }

  struct PWGPage: Decodable {
    var mediaClass: String
    var resolution: [Int]
    var pageSize: [Int]
    var width: Int
    var height: Int
    var bitsPerPixel: Int
    var bytesPerLine: Int
    var colorSpace: Int
    var totalPageCount: Int
    var rows: String
  }

  func readIndependently(_ data: Data) throws -> [PWGPage] {
    let reader = Tool.packageRoot.appendingPathComponent("Tests/Support/pwg_reader.py").path
    let result = try Tool.run("python3", [reader], stdin: data)
    try #require(result.status == 0, "\(result.stderr)")
    return try result.stdout.split(separator: "\n").map { try JSONDecoder().decode(PWGPage.self, from: Data($0.utf8)) }
  }

  /// The page as netpbm decodes our PNG: PBM rows (1 = black, MSB-first), as hex.
  func pngRows(_ image: RasterImage) throws -> String {
    let url = try Tool.temporaryDirectory().appendingPathComponent("p.png")
    try PNGWriter().encode(image, dpi: 203).write(to: url)
    let pbm = try Tool.decodePNG(url)
    #expect(pbm.width == image.width && pbm.height == image.height && pbm.bits == 1)
    return pbm.data.map { String(format: "%02x", $0) }.joined()
  }

  @Test(arguments: [PWGRasterWriter.Mode.pwg, .cups])
  func rasterStreamsDecodeIndependentlyToThePNGsDots(mode: PWGRasterWriter.Mode) throws {
    let receipt = try Self.receipt()
    let pages = try RasterRenderer().render(receipt)
    let stream = try PWGRasterWriter(mode: mode).encode(pages, setup: receipt.pageSetup)
    let decoded = try readIndependently(stream)
    #expect(decoded.count == 2)
    for (page, image) in zip(decoded, pages) {
      #expect(page.width == 639 && page.width == image.width && page.height == image.height)
      #expect(page.bitsPerPixel == 1 && page.bytesPerLine == 80 && page.resolution == [203, 203])
      #expect(page.colorSpace == 3, "black_1 is cupsColorSpace K (3): 1 = black")
      if mode == .pwg {
        #expect(page.mediaClass == "PwgRaster" && page.totalPageCount == 2)
      }
      // PageSize in points from the page length in dots.
      #expect(page.pageSize[1] == Int((Double(image.height) * 72 / 203).rounded()))
      #expect(page.rows == (try pngRows(image)), "the same dots as the PNG")
      #expect(page.rows.contains { $0 != "0" }, "not blank")
    }
  }

  /// The commands of an ESC/POS stream as Epson's reference lays them out.
  enum Command: Equatable {
    case initialize
    case raster(bytesPerLine: Int, rows: Int, data: [UInt8])
    case drawer(pinByte: UInt8, on: UInt8, off: UInt8)
    case cut(function: UInt8, feed: UInt8)
    case feed(units: Int)
    case motionUnits(x: UInt8, y: UInt8)
  }

  /// Splits a stream by the reference's layouts: `ESC @` (1B 40); `GS v 0 m xL xH yL yH d1…dk`
  /// (1D 76 30 m, k = (xL + 256 xH)(yL + 256 yH)); `ESC p m t1 t2` (1B 70); `GS V m n` with
  /// function B, m = 65 full or 66 partial (1D 56 41|42 n); `ESC J n` (1B 4A n: feed n vertical
  /// motion units); `GS P x y` (1D 50 x y: units of 1/x and 1/y inch). Anything else fails.
  func commands(_ data: Data) -> [Command] {
    let b = [UInt8](data)
    var i = 0
    var result: [Command] = []
    while i < b.count {
      if b[i...].starts(with: [0x1B, 0x40]) {
        result.append(.initialize)
        i += 2
      } else if b[i...].starts(with: [0x1D, 0x76, 0x30, 0x00]), i + 8 <= b.count {
        let x = Int(b[i + 4]) + 256 * Int(b[i + 5])
        let y = Int(b[i + 6]) + 256 * Int(b[i + 7])
        result.append(.raster(bytesPerLine: x, rows: y, data: Array(b[(i + 8)..<(i + 8 + x * y)])))
        i += 8 + x * y
      } else if b[i...].starts(with: [0x1B, 0x4A]), i + 3 <= b.count {
        // ESC J n: print and feed n × the vertical motion unit (GS P's y; the printer's own
        // default until GS P: 1/360 inch on the TM-T88 line).
        result.append(.feed(units: Int(b[i + 2])))
        i += 3
      } else if b[i...].starts(with: [0x1D, 0x50]), i + 4 <= b.count {
        result.append(.motionUnits(x: b[i + 2], y: b[i + 3]))
        i += 4
      } else if b[i...].starts(with: [0x1B, 0x70]), i + 5 <= b.count {
        result.append(.drawer(pinByte: b[i + 2], on: b[i + 3], off: b[i + 4]))
        i += 5
      } else if b[i...].starts(with: [0x1D, 0x56]), i + 4 <= b.count, b[i + 2] == 65 || b[i + 2] == 66 {
        result.append(.cut(function: b[i + 2], feed: b[i + 3]))
        i += 4
      } else {
        Issue.record("byte \(i): \(String(format: "%02X", b[i])) is none of the expected commands")
        return result
      }
    }
    return result
  }

  @Test func escposFollowsEpsonsByteLayouts() throws {
    let receipt = try Self.receipt()
    let pages = try RasterRenderer().render(receipt)
    let stream = ESCPOSEncoder().encode(pages, receipt: receipt)
    let list = commands(stream)
    #expect(list.first == .initialize)
    // Right after ESC @ (which resets them), GS P sets the vertical unit to the 203-dpi dot pitch
    // and leaves the horizontal one at its default (x = 0): feeds below count dot rows.
    #expect(list.dropFirst().first == .motionUnits(x: 0, y: 203))
    // Page 1: raster bands of 72 bytes (576 dots on 80 mm), drawer pin 2 (m = 0), partial cut
    // (m = 66); page 2: bands, drawer pin 5 (m = 1), full cut (m = 65). 25 × 2 ms on,
    // 250 × 2 ms off.
    let rest = list.dropFirst(2).filter {
      switch $0 {
      case .raster, .feed: return false
      default: return true
      }
    }
    #expect(
      rest == [
        .drawer(pinByte: 0, on: 25, off: 250), .cut(function: 66, feed: 0), .drawer(pinByte: 1, on: 25, off: 250),
        .cut(function: 65, feed: 0),
      ])
    let bands = list.compactMap { command -> (Int, Int)? in
      if case .raster(let x, let y, _) = command { return (x, y) } else { return nil }
    }
    // Bands are at most 72 bytes (576 dots on 80 mm) wide: as wide as their rightmost dot.
    #expect(bands.allSatisfy { $0.0 <= 72 && $0.0 > 0 && $0.1 <= 256 && $0.1 > 0 })
    let feeds = list.reduce(0) { total, command in
      if case .feed(let units) = command { return total + units } else { return total }  // 1/203 inch = 1 row
    }
    #expect(feeds > 0, "blank rows travel as ESC J feeds")
    #expect(bands.reduce(0) { $0 + $1.1 } + feeds == pages.reduce(0) { $0 + $1.height }, "every row of both pages")
  }

  @Test func escposMatchesPythonEscposForTheSameCommands() throws {
    let receipt = try Self.receipt()
    let pages = try RasterRenderer().render(receipt)
    // python-escpos sends every row as image data: compare with our encoder's plain mode.
    let stream = ESCPOSEncoder(feedsBlankRows: false).encode(pages, receipt: receipt)
    // python-escpos encodes the first page's printable dots (as a PBM) with GS v 0 in 256-row
    // fragments, a feed-to-cutter partial cut and a pin-2 kick.
    let columns = RasterRenderer.printableColumns(pageWidth: pages[0].width, setup: receipt.pageSetup)
    let printable = pages[0].cropped(x: columns.lowerBound, width: columns.count)
    let pbm = try Tool.temporaryDirectory().appendingPathComponent("p.pbm")
    try (Data("P4\n\(printable.width) \(printable.height)\n".utf8) + Data(printable.data)).write(to: pbm)
    let script = """
      import sys
      from PIL import Image
      from escpos.printer import Dummy
      p = Dummy()
      p.image(Image.open(sys.argv[1]), impl="bitImageRaster", fragment_height=256, center=False)
      image = p.output
      p = Dummy(); p.cashdraw(2); kick = p.output
      p = Dummy(); p.cut(feed=False); cut = p.output
      sys.stdout.write(image.hex() + " " + kick.hex() + " " + cut.hex())
      """
    let result = try Tool.run("python3", ["-c", script, pbm.path])
    try #require(result.status == 0, "python-escpos: \(result.stderr)")
    // (python-escpos prints a note about centring on stdout; the bytes are the last line.)
    let parts = (result.stdout.split(separator: "\n").last ?? "").split(separator: " ").map(String.init)
    let ours = stream.map { String(format: "%02x", $0) }.joined()
    // Our page 1 after ESC @ and GS P 0 203 (python-escpos sends no GS P): the bands, then the
    // kick, then the cut.
    let bandsHex = parts[0]
    #expect(ours.hasPrefix("1b40" + "1d5000cb" + bandsHex), "raster bands equal python-escpos' GS v 0 bytes")
    let afterBands = ours.dropFirst(12 + bandsHex.count)
    #expect(afterBands.hasPrefix("1b7000"), "pin 2 like python-escpos (\(parts[1]))")
    #expect(parts[1].hasPrefix("1b7000") && parts[2] == "1d564200")
    #expect(afterBands.dropFirst(10).hasPrefix(parts[2]), "the partial cut is python-escpos' feed-and-cut bytes")
  }
}
