import Foundation
import ReceiptTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The README's promises about `receipt render`, each checked on the shipped binary with a tool
/// that is not receipt: exit codes, options, formats, file names and template features.
@Suite struct CLIPromiseTests {
  var receipt: String { (try? Tool.shippedBinary()) ?? "receipt-release-binary-missing" }
  var templates: String { Tool.packageRoot.appendingPathComponent("Templates").path }

  func note(_ text: String = "Hello, receipt.\nSecond line\n") throws -> (URL, URL) {
    let dir = try Tool.temporaryDirectory()
    let input = dir.appendingPathComponent("note.txt")
    try text.write(to: input, atomically: true, encoding: .utf8)
    return (dir, input)
  }

  /// A template of its own with an order, rendered to `name`; returns the result and the file.
  func renderTemplate(_ xml: String, data: String = "{}", to name: String, extra: [String] = []) throws -> (
    Tool.Result, URL
  ) {
    let dir = try Tool.temporaryDirectory()
    try xml.write(to: dir.appendingPathComponent("t.xml"), atomically: true, encoding: .utf8)
    let order = dir.appendingPathComponent("o.json")
    try data.write(to: order, atomically: true, encoding: .utf8)
    let out = dir.appendingPathComponent(name)
    let result = try Tool.run(
      receipt, ["render", order.path, "--templates", dir.path, "--template", "t", "-o", out.path] + extra)
    return (result, out)
  }

  @Test func outputThatCannotBeWrittenIsExit73WithOneLine() throws {
    let (dir, input) = try note()
    for (output, reason) in [
      ("/dev/full", "No space left on device"), (dir.appendingPathComponent("missing/x.pdf").path, "No such file"),
    ] {
      let result = try Tool.run(receipt, ["render", input.path, "-o", output, "--format", "pdf"])
      #expect(result.status == 73, "\(output): \(result.stderr)")
      #expect(result.stderr.hasPrefix("receipt: error: cannot write") && result.stderr.contains(reason))
      #expect(result.stderr.split(separator: "\n").count == 1)
    }
    // Standard output full or closed.
    let full = try Tool.run(
      "/bin/sh", ["-c", "\"$0\" render \"$1\" -o - --format pdf > /dev/full", receipt, input.path])
    #expect(full.status == 73 && full.stderr.contains("cannot write standard output"), "\(full.stderr)")
    let closed = try Tool.run("/bin/sh", ["-c", "\"$0\" measure \"$1\" >&-", receipt, input.path])
    #expect(closed.status == 73 && closed.stderr.contains("Bad file descriptor"), "\(closed.stderr)")
  }

  @Test func devicesFIFOsAndSymlinksAreWrittenInPlace() throws {
    let (dir, input) = try note()
    // A FIFO (like a printer device): written in place, still a FIFO afterwards.
    let fifo = dir.appendingPathComponent("printer.fifo")
    #expect(mkfifo(fifo.path, 0o600) == 0)
    let received = dir.appendingPathComponent("received.bin")
    let toFIFO = try Tool.run(
      "/bin/sh",
      [
        "-c", "cat \"$2\" > \"$3\" & \"$0\" render \"$1\" -o \"$2\" --format escpos; s=$?; wait; exit $s",
        receipt, input.path, fifo.path, received.path,
      ])
    #expect(toFIFO.status == 0, "\(toFIFO.stderr)")
    #expect(try Data(contentsOf: received).prefix(2) == Data([0x1B, 0x40]), "the reader got the ESC/POS bytes")
    var info = stat()
    #expect(lstat(fifo.path, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO, "the FIFO is still a FIFO")
    // A character device: /dev/null stays a device.
    let toNull = try Tool.run(receipt, ["render", input.path, "-o", "/dev/null", "--format", "escpos"])
    #expect(toNull.status == 0 && lstat("/dev/null", &info) == 0 && info.st_mode & S_IFMT == S_IFCHR)
    // A symlink: its target gets the receipt (truncated first), the link stays a link.
    let target = dir.appendingPathComponent("target.pdf")
    try Data(repeating: 0x41, count: 500_000).write(to: target)
    let link = dir.appendingPathComponent("link.pdf")
    try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
    #expect(try Tool.run(receipt, ["render", input.path, "-o", link.path]).status == 0)
    #expect(lstat(link.path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK)
    #expect(try Tool.run("pdftotext", [target.path, "-"]).stdout.contains("Hello, receipt."))
    #expect((try Data(contentsOf: target)).count < 500_000, "no old bytes after the new ones")
    // A regular file is replaced atomically: no temporary file is left beside it.
    let regular = dir.appendingPathComponent("r.pdf")
    #expect(try Tool.run(receipt, ["render", input.path, "-o", regular.path]).status == 0)
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix(".") }
    #expect(leftovers.isEmpty, "\(leftovers)")
  }

  /// The pHYs chunk of a PNG, read with Python's struct (pixels per metre).
  func physicalResolution(_ png: URL) throws -> Int {
    let script = """
      import struct, sys
      d = open(sys.argv[1], 'rb').read()
      i = d.index(b'pHYs')
      x, y, unit = struct.unpack('>IIB', d[i + 4:i + 13])
      print(x if x == y and unit == 1 else -1)
      """
    return Int(
      try Tool.run("python3", ["-c", script, png.path]).stdout.trimmingCharacters(in: .whitespacesAndNewlines))
      ?? -2
  }

  @Test func dpiMarginAndPaperChangeTheDots() throws {
    let (dir, input) = try note()
    func png(_ name: String, _ extra: [String]) throws -> (width: Int, height: Int, url: URL) {
      let url = dir.appendingPathComponent(name)
      let result = try Tool.run(receipt, ["render", input.path, "-o", url.path] + extra)
      #expect(result.status == 0, "\(result.stderr)")
      let decoded = try Tool.decodePNG(url)
      return (decoded.width, decoded.height, url)
    }
    let lines = (2 * 11.640625).rounded(.up)
    let base = try png("a.png", [])
    #expect(base.width == 639 && base.height == Int(((lines + 18) * 203 / 72).rounded(.up)))
    #expect(try physicalResolution(base.url) == Int((203 / 0.0254).rounded()))
    let fine = try png("b.png", ["--dpi", "300"])
    #expect(fine.width == 8000 * 300 / 2540 && fine.height == Int(((lines + 18) * 300 / 72).rounded(.up)))
    #expect(try physicalResolution(fine.url) == Int((300 / 0.0254).rounded()))
    let margin = try png("c.png", ["--margin", "5mm"])
    let fiveMM = 5 / 25.4 * 72
    #expect(margin.height == Int(((lines + 2 * fiveMM) * 203 / 72 - 1e-9).rounded(.up)))
    let wide = try png("d.png", ["--paper", "112mm"])
    #expect(wide.width == 11200 * 203 / 2540)
    let narrow = try png("e.png", ["--paper", "58mm"])
    #expect(narrow.width == 5800 * 203 / 2540)
  }

  @Test func pagesBecomeNumberedPNGsAndBinPrnAreESCPOS() throws {
    let (result, out) = try renderTemplate(
      "<receipt><text>one</text><cut/><text>two</text><cut/><text>three</text></receipt>", to: "r.png")
    #expect(result.status == 0, "\(result.stderr)")
    let dir = out.deletingLastPathComponent()
    for name in ["r.png", "r-2.png", "r-3.png"] {
      #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent(name).path), "\(name)")
    }
    #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("r-4.png").path))
    for ext in ["bin", "prn"] {
      let (escpos, file) = try renderTemplate("<receipt><text>x</text></receipt>", to: "r.\(ext)")
      #expect(escpos.status == 0)
      // ESC @, the vertical motion unit set to the 203-dpi dot pitch (GS P 0 203), then the top
      // margin as a feed (ESC J), then the first raster band (GS v 0).
      let bytes = try Data(contentsOf: file)
      #expect(bytes.prefix(8) == Data([0x1B, 0x40, 0x1D, 0x50, 0x00, 0xCB, 0x1B, 0x4A]), ".\(ext) is ESC/POS")
      #expect(bytes.dropFirst(9).prefix(2) == Data([0x1D, 0x76]), ".\(ext) is ESC/POS")
    }
  }

  @Test func dataURIImagesTimeZonesAndWrapModes() throws {
    let png = try Data(contentsOf: Tool.packageRoot.appendingPathComponent("Templates/logo.png"))
    let uri = "data:image/png;base64," + png.base64EncodedString()
    let (logo, logoPDF) = try renderTemplate(#"<receipt><image src="\#(uri)"/></receipt>"#, to: "l.pdf")
    #expect(logo.status == 0, "\(logo.stderr)")
    #expect(try Tool.run("pdfimages", ["-list", logoPDF.path]).stdout.split(separator: "\n").count == 3)
    // 12:30 UTC is 13:30 in Berlin in winter and 21:30 in Tokyo.
    let order = #"{"at": "2026-01-15T12:30:00Z"}"#
    for (zone, expected) in [("Europe/Berlin", "13:30"), ("Asia/Tokyo", "21:30")] {
      let (result, pdf) = try renderTemplate(
        #"<receipt timezone="\#(zone)"><text>${at | time:HH:mm}</text></receipt>"#, data: order, to: "z.pdf")
      #expect(result.status == 0, "\(result.stderr)")
      #expect(try Tool.run("pdftotext", [pdf.path, "-"]).stdout.contains(expected), "\(zone)")
    }
    let long = String(repeating: "Franzbrötchen ", count: 12)
    let (truncated, tpdf) = try renderTemplate(
      #"<receipt><text wrap="truncate">\#(long)</text></receipt>"#, to: "w.pdf")
    #expect(truncated.status == 0)
    let text = try Tool.run("pdftotext", [tpdf.path, "-"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(!text.contains("\n") && text.hasSuffix("…"), "one line with an ellipsis: \(text)")
    let (wrapped, wpdf) = try renderTemplate(#"<receipt><text>\#(long)</text></receipt>"#, to: "x.pdf")
    #expect(wrapped.status == 0)
    #expect(try Tool.run("pdftotext", [wpdf.path, "-"]).stdout.split(separator: "\n").count > 3)
  }

  @Test func rowsAreMirroredInRightToLeftLocales() throws {
    func leftOf(_ word: String, in pdf: URL) throws -> Double? {
      let html = try Tool.run("pdftotext", ["-bbox", pdf.path, "-"]).stdout
      guard let line = html.split(separator: "\n").first(where: { $0.contains(">\(word)<") }),
        let range = line.range(of: "xMin=\"")
      else { return nil }
      return Double(line[range.upperBound...].prefix { $0 != "\"" })
    }
    let xml = #"<receipt><row><text>FIRST</text><spacer weight="1"/><text>LAST</text></row></receipt>"#
    let (ltr, ltrPDF) = try renderTemplate(xml, to: "l.pdf", extra: ["--locale", "en_US"])
    let (rtl, rtlPDF) = try renderTemplate(xml, to: "r.pdf", extra: ["--locale", "ar_EG"])
    #expect(ltr.status == 0 && rtl.status == 0)
    let (a, b) = (try leftOf("FIRST", in: ltrPDF), try leftOf("LAST", in: ltrPDF))
    let (c, d) = (try leftOf("FIRST", in: rtlPDF), try leftOf("LAST", in: rtlPDF))
    #expect(a != nil && b != nil && a! < b!, "left to right: the first cell on the left")
    #expect(c != nil && d != nil && c! > d!, "right to left: the first cell on the right")
  }

  @Test func ordersOverTheLimitAreRefused() throws {
    let dir = try Tool.temporaryDirectory()
    let order = dir.appendingPathComponent("big.json")
    try (#"{"padding": ""# + String(repeating: "x", count: 9 << 20) + #""}"#).write(
      to: order, atomically: true, encoding: .utf8)
    let result = try Tool.run(
      receipt, ["render", order.path, "--templates", templates, "-o", "/dev/null", "--format", "pdf"])
    #expect(result.status == 65 && result.stderr.contains("limited to 8388608"), "\(result.stderr)")
  }

  @Test func hostileInputIsADataErrorWithItsReason() throws {
    // A receipt longer than 4 m, a negative spacer, margins wider than the paper.
    let lines = String(repeating: "<text>line</text>", count: 400) + "<spacer height=\"3000mm\"/>"
    let (tooLong, _) = try renderTemplate("<receipt>\(lines)</receipt>", to: "a.pdf")
    #expect(tooLong.status == 65 && tooLong.stderr.contains("at most 4000 mm"), "\(tooLong.stderr)")
    let (negative, _) = try renderTemplate(#"<receipt><spacer height="-9999pt"/></receipt>"#, to: "b.pdf")
    #expect(negative.status == 65 && negative.stderr.contains("cannot be negative"), "\(negative.stderr)")
    let (_, input) = try note()
    let margins = try Tool.run(
      receipt, ["render", input.path, "-o", "/dev/null", "--format", "pdf", "--paper", "13mm", "--margin", "71pt"])
    #expect(margins.status == 65 && margins.stderr.contains("content area"), "\(margins.stderr)")
    // An image that is a directory; a corrupt PNG; an unknown font (a warning, not silence).
    let dir = try Tool.temporaryDirectory()
    try FileManager.default.createDirectory(
      at: dir.appendingPathComponent("logo.png"), withIntermediateDirectories: true)
    try #"<receipt><image src="logo.png"/></receipt>"#.write(
      to: dir.appendingPathComponent("t.xml"), atomically: true, encoding: .utf8)
    let order = dir.appendingPathComponent("o.json")
    try "{}".write(to: order, atomically: true, encoding: .utf8)
    let directory = try Tool.run(
      receipt, ["render", order.path, "--templates", dir.path, "--template", "t", "-o", "/dev/null", "--format", "pdf"])
    #expect(directory.status == 65 && directory.stderr.contains("not a regular file"), "\(directory.stderr)")
    try FileManager.default.removeItem(at: dir.appendingPathComponent("logo.png"))
    try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]).write(
      to: dir.appendingPathComponent("logo.png"))
    let corrupt = try Tool.run(
      receipt, ["render", order.path, "--templates", dir.path, "--template", "t", "-o", "/dev/null", "--format", "pdf"])
    #expect(corrupt.status == 65 && corrupt.stderr.contains("PNG"), "\(corrupt.stderr)")
    let font = try Tool.run(
      receipt, ["render", input.path, "-o", "/dev/null", "--format", "pdf", "--font", "NoSuchFamily 10"])
    #expect(font.status == 0 && font.stderr.contains("font 'NoSuchFamily' is not installed"), "\(font.stderr)")
    let socket = try Tool.run(receipt, ["print", input.path, "--printer", "socket://999.1.1.1:99999"])
    #expect(socket.status == 64 && socket.stderr.contains("port from 1 to 65535"), "\(socket.stderr)")
    #expect(!socket.stderr.contains("CUPS"))
  }
}
