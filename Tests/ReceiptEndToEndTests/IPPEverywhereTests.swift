import Foundation
import ReceiptTestSupport
import Testing

/// Every printer of the shipped daemon as an IPP Everywhere / AirPrint roll printer, checked by
/// CUPS' own tools: ipptool's conformance suites, `lpadmin -m everywhere` and `lp` (cupsd and its
/// filters as the client), avahi-browse; what comes out is read by the thermal printer simulator
/// (written from Epson's references), lengths against the documents' own page sizes (poppler)
/// and the raster pages' headers.
@Suite(.serialized, .timeLimit(.minutes(15))) struct IPPEverywhereTests {
  /// A daemon with `printers` (name → target) and their models, on a fresh queue.
  func daemon(
    _ printers: [String: String], models: [String: String] = [:], settings: String = "",
    environment: [String: String] = [:]
  ) throws -> (Daemon, URL) {
    let work = try Tool.temporaryDirectory()
    let config = work.appendingPathComponent("serve.json")
    let list = printers.map { #""\#($0.key)": "\#($0.value)""# }.joined(separator: ", ")
    let modelList = models.map { #""\#($0.key)": "\#($0.value)""# }.joined(separator: ", ")
    try """
    {"database": "\(work.appendingPathComponent("queue.sqlite").path)",
     "templates": "\(Tool.packageRoot.appendingPathComponent("Templates").path)",
     "printers": {\(list)}, "printerModels": {\(modelList)}, "ippPort": 0\(settings)}
    """.write(to: config, atomically: true, encoding: .utf8)
    let daemon = try Daemon(
      arguments: ["--config", config.path], environment: environment, log: work.appendingPathComponent("serve.log"))
    try daemon.start()
    #expect(waitUntil(seconds: 10) { daemon.ippPort != nil }, "the daemon names its IPP port")
    return (daemon, work)
  }

  func uri(_ daemon: Daemon, _ printer: String) -> String {
    "ipp://127.0.0.1:\(daemon.ippPort ?? 0)/ipp/print/\(printer)"
  }

  /// CUPS' conformance suite passes against each kind of printer: a socket printer (a TM-T88VI
  /// at 180 dpi, so the suite also prints its 180-dpi PWG samples), a serial and a USB printer
  /// (pty simulators), a directory and a CUPS queue. The output is in the test log.
  @Test func cupsConformanceSuitesPassOnEveryKindOfPrinter() throws {
    let socket = try ThermalPrinterSimulator(model: .epsonTMT88)
    let serial = try ThermalPrinterSimulator(serialBaud: 115_200, model: .generic203(headDots: 384))
    let usb = try ThermalPrinterSimulator(serialBaud: 460_800)
    let rig = try PrintRig.get()
    let directory = try Tool.temporaryDirectory()
    let (daemon, _) = try daemon(
      [
        "till": "socket://127.0.0.1:\(socket.port)", "kiosk": "serial:\(serial.devicePath!)?baud=115200",
        "bar": "usb:\(usb.devicePath!)", "archive": "dir:\(directory.path)", "office": "cups:roll",
      ], models: ["till": "epson-tm-t88vi", "kiosk": "generic-58mm", "bar": "generic-80mm"],
      settings: #", "cupsServer": "\#(rig.server)""#)
    defer { _ = daemon.terminate() }
    for (printer, dpi) in [("till", 180), ("kiosk", 203), ("bar", 203), ("archive", 203), ("office", 203)] {
      let suite = try IPPClient.conformanceSuite(dpi: dpi)
      let run = try IPPClient.run(
        uri(daemon, printer), ["-f", "testfile.pdf"], tests: ["ipp-everywhere.test"], directory: suite)
      print("ipptool ipp-everywhere.test against \(printer):\n\(run.output)")
      #expect(run.status == 0 && run.failures.isEmpty, "\(printer): \(run.failures)")
      #expect(run.output.contains("PWG 5100.14 section 5.1/5.2 - Required Operations and Attributes     [PASS]"))
      #expect(run.output.contains("RFC 8011 section 4.2.1: Print-Job Operation"))
    }
    // The 180-dpi samples printed on the TM-T88VI (a 4 × 6 in photograph, A4 and Letter pages in
    // black_1, sgray_8 and srgb_8, scaled to the roll's width).
    #expect(socket.pages.count >= 18, "\(socket.pages.count) pages")
    #expect(socket.pages.allSatisfy { $0.width == 512 })
  }

  /// The PWG's IPP Everywhere self-certification tests (`tests/ipp-tests.test` of
  /// istopwg/ippeveselfcert), read at run time from a local checkout of that repository (its git
  /// directory in `RECEIPT_IPPEVESELFCERT`, by default the tool library's mirror); nil without one.
  static var pwgIPPTests: String? {
    guard FileManager.default.fileExists(atPath: pwgRepository),
      let run = try? Tool.run("git", ["--git-dir", pwgRepository, "show", "HEAD:tests/ipp-tests.test"]), run.status == 0
    else { return nil }
    return run.stdout
  }

  /// The git directory of istopwg/ippeveselfcert.
  static var pwgRepository: String {
    ProcessInfo.processInfo.environment["RECEIPT_IPPEVESELFCERT"] ?? "/work/.mirror/istopwg+ippeveselfcert/repo"
  }

  /// PWG's self-certification document tests pass (`tests/document-tests.test` with its PDF and
  /// JPEG files): PWG raster in each type the printer takes, PDFs with copies, page ranges and
  /// sheet sizes asked for with `ipp-attribute-fidelity` (A4 and Letter pages print scaled to the
  /// roll). The groups for what a roll printer does not do (CMYK, compressed raster, color JPEG,
  /// duplex) are skipped by the suite itself. ipptool 2.4 has no `GENERATE-FILE`: each generated
  /// page is a PWG raster of the colour space it names (Support/raster_writer.py).
  @Test(.enabled(if: pwgIPPTests != nil, "needs a checkout of istopwg/ippeveselfcert"))
  func pwgSelfCertificationDocumentTestsPass() throws {
    let (daemon, work) = try daemon(["till": "dir:\(try Tool.temporaryDirectory().path)"])
    defer { _ = daemon.terminate() }
    let suite = work.appendingPathComponent("pwg")
    try FileManager.default.createDirectory(at: suite, withIntermediateDirectories: true)
    for file in ["document-tests.test", "color.jpg", "document-letter.pdf", "document-a4.pdf"] {
      let copy = try Tool.run(
        "/bin/sh",
        [
          "-c", "git --git-dir \"$0\" show \"HEAD:tests/$1\" > \"$2\"", Self.pwgRepository, file,
          suite.appendingPathComponent(file).path,
        ])
      #expect(copy.status == 0, "\(file): \(copy.stderr)")
    }
    // Each generated page: the colour space its block names (`auto` and the unsupported `cmyk_8`
    // read as 8-bit gray; the suite skips the tests that would send `cmyk_8`).
    let tests = suite.appendingPathComponent("document-tests.test")
    var text = try String(contentsOf: tests, encoding: .utf8)
    for block in text.matches(of: /GENERATE-FILE\s*\{[^}]*\}/).map({ String($0.output) }).reversed() {
      let space = block.firstMatch(of: /COLORSPACE\s+(\S+)/).map { String($0.output.1) } ?? "sgray_8"
      text = text.replacingOccurrences(of: block, with: "FILE \"\(space).pwg\"")
    }
    try text.write(to: tests, atomically: true, encoding: .utf8)
    for space in ["black_1", "sgray_8", "srgb_8", "auto", "cmyk_8"] {
      let type = ["black_1", "srgb_8"].contains(space) ? space : "sgray_8"
      let page = try IPPClient.rasterPage("pwg", type: type, dpi: 203, width: 80, length: 100)
      try? FileManager.default.removeItem(at: suite.appendingPathComponent("\(space).pwg"))
      try FileManager.default.copyItem(at: page, to: suite.appendingPathComponent("\(space).pwg"))
    }
    let run = try IPPClient.run(
      "ipp://localhost:\(daemon.ippPort ?? 0)/ipp/print/till", ["-V", "2.0"], tests: ["document-tests.test"],
      directory: suite)
    print("PWG document-tests.test:\n\(run.output)")
    #expect(run.status == 0 && run.failures.isEmpty, "\(run.failures)")
    #expect(run.output.contains(" 0 failed"), "\(run.output.suffix(300))")
    let lines = run.output.split(separator: "\n")
    for test in ["D-1.1 Print PWG @ maximum resolution (black_1", "D-3.3 Print document-letter.pdf", "D-3.6 Print"] {
      #expect(lines.contains { $0.contains(test) && $0.contains("[PASS]") }, "\(test) passed")
    }
  }

  /// PWG's self-certification IPP tests pass against a printer of the shipped daemon, every
  /// one but the two that need paper taken out by hand (I-20, I-20.1: `-d IPP_EVERYWHERE_SERVER=1`
  /// skips them; `paperOutHoldsTheJobAndACrashLosesNothing` checks `media-needed`). Debian's
  /// ipptool 2.4 has no `GENERATE-FILE`: each generated document is a one-page PWG raster
  /// instead (`FILE`, written by `receipt render`). The URI names `localhost`, which is the
  /// `Host` libcups sends for a loopback address (the suite compares URIs with it).
  @Test(.enabled(if: pwgIPPTests != nil, "needs a checkout of istopwg/ippeveselfcert"))
  func pwgSelfCertificationIPPTestsPass() throws {
    let (daemon, work) = try daemon(["till": "dir:\(try Tool.temporaryDirectory().path)"])
    defer { _ = daemon.terminate() }
    let suite = try #require(Self.pwgIPPTests).replacingOccurrences(
      of: #"GENERATE-FILE\s*\{[^}]*\}"#, with: "FILE $filename", options: .regularExpression)
    let tests = work.appendingPathComponent("ipp-tests.test")
    try suite.write(to: tests, atomically: true, encoding: .utf8)
    let page = work.appendingPathComponent("onepage.pwg")
    let render = try Tool.run(
      try Tool.shippedBinary(),
      [
        "render", Tool.packageRoot.appendingPathComponent("Templates/Examples/small.json").path, "--templates",
        Tool.packageRoot.appendingPathComponent("Templates").path, "-o", page.path,
      ])
    #expect(render.status == 0, "\(render.stderr)")
    let run = try IPPClient.run(
      "ipp://localhost:\(daemon.ippPort ?? 0)/ipp/print/till",
      ["-V", "2.0", "-d", "IPP_EVERYWHERE_SERVER=1", "-f", page.path],
      tests: [tests.path])
    print("PWG ipp-tests.test:\n\(run.output)")
    // The optional attributes whose syntax the suite checks when they are there: they are.
    let optional = [
      "document-format-preferred", "pdf-versions-supported", "pdf-k-octets-supported", "jpeg-k-octets-supported",
      "printer-input-tray", "printer-output-tray", "printer-supply", "document-password-supported",
      "jpeg-features-supported", "printer-alert", "printer-alert-description",
    ]
    let present = try IPPClient.request(
      "ipp://localhost:\(daemon.ippPort ?? 0)/ipp/print/till", operation: "Get-Printer-Attributes",
      ["ATTR keyword requested-attributes \(optional.joined(separator: ","))"])
    // (printer-alert is one empty value while nothing is wrong: named, with nothing after `=`.)
    for name in optional { #expect(present.output.contains("\(name) ("), "\(name) is there for the suite to check") }
    // jpeg-features-supported's keywords as IANA's IPP registry lists them (PWG 5100.16).
    let jpegFeatures: Set = ["arithmetic", "cmyk", "deep", "hierarchical", "icc", "lossless", "none", "progressive"]
    #expect(
      present.values("jpeg-features-supported").allSatisfy { jpegFeatures.contains($0) },
      "\(present.values("jpeg-features-supported"))")
    #expect(run.status == 0 && run.failures.isEmpty, "\(run.failures)")
    #expect(run.output.contains("0 failed"), "\(run.output.suffix(300))")
    for test in ["I-10. Get-Printer-Attributes Operation (default)", "I-14. Get-Job-Attributes Operation", "I-19.3"] {
      #expect(run.output.contains(test), "\(test) ran")
    }
  }

  /// Home Assistant's IPP client (pyipp, from PyPI) reads a printer as Home Assistant's IPP
  /// integration does: the paper as a marker with its level, a serial number (pyipp takes it
  /// from the IEEE 1284 device ID's `SN`), the same after a restart, and the firmware version —
  /// debian/changelog's, as dpkg reads it — over plain IPP and over IPPS.
  @Test func homeAssistantsClientReadsThePaperTheSerialAndTheFirmware() throws {
    let script = """
      import asyncio, json, sys
      from pyipp import IPP
      async def main():
          tls = sys.argv[2] == "tls"
          async with IPP(host="127.0.0.1", port=int(sys.argv[1]), base_path="/ipp/print/till", tls=tls,
                         verify_ssl=False) as ipp:
              printer = await ipp.printer()
              print(json.dumps({"serial": printer.info.serial, "version": printer.info.version,
                  "markers": [[m.name, m.level, m.marker_type] for m in printer.markers]}))
      asyncio.run(main())
      """
    func read(tls: Bool) throws -> [String: Any] {
      let (daemon, _) = try daemon(["till": "dir:\(try Tool.temporaryDirectory().path)"])
      defer { _ = daemon.terminate() }
      let run = try Tool.run("python3", ["-c", script, "\(daemon.ippPort ?? 0)", tls ? "tls" : "plain"])
      #expect(run.status == 0, "\(run.stderr)")
      return (try? JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]) ?? [:]
    }
    // The second time over TLS, as Home Assistant reads a printer set up with "Uses SSL".
    let (first, second) = (try read(tls: false), try read(tls: true))
    let serial = first["serial"] as? String ?? ""
    #expect(serial.count == 16 && serial.allSatisfy(\.isHexDigit), "serial: \(first)")
    #expect(second["serial"] as? String == serial, "the serial survives a restart: \(second)")
    let changelog = try Tool.run(
      "dpkg-parsechangelog", ["-l", Tool.packageRoot.appendingPathComponent("debian/changelog").path, "-S", "Version"])
    #expect(first["version"] as? String == changelog.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    let markers = first["markers"] as? [[Any]] ?? []
    #expect(markers.count == 1, "\(markers)")
    #expect(markers.first?.first as? String == "Receipt paper (80 mm roll)", "\(markers)")
    #expect(markers.first?.dropFirst().first as? Int == -3, "some paper left, not measured: \(markers)")
  }

  /// PWG 5100.14's `printer-dns-sd-name`, read by ipptool: the printer's name and the host's, as
  /// it is advertised.
  @Test func thePrinterSaysItsDNSSDName() throws {
    let (daemon, work) = try daemon(["till": "dir:\(try Tool.temporaryDirectory().path)"])
    defer { _ = daemon.terminate() }
    let test = work.appendingPathComponent("dns-sd-name.test")
    let host = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? ""
    try """
    {
      NAME "printer-dns-sd-name"
      OPERATION Get-Printer-Attributes
      GROUP operation-attributes-tag
      ATTR charset attributes-charset utf-8
      ATTR naturalLanguage attributes-natural-language en
      ATTR uri printer-uri $uri
      ATTR keyword requested-attributes printer-dns-sd-name
      STATUS successful-ok
      EXPECT printer-dns-sd-name OF-TYPE name COUNT 1 WITH-VALUE "till @ \(host)"
    }
    """.write(to: test, atomically: true, encoding: .utf8)
    let run = try Tool.run("ipptool", ["-t", "ipp://localhost:\(daemon.ippPort ?? 0)/ipp/print/till", test.path])
    #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
  }

  /// `printer-icons` lists three PNGs of PWG 5100.13's sizes in its order — 48, 128 and 512
  /// pixels square — each one served at its URI (the sizes read from the PNGs' own headers by
  /// Python, fetched by curl).
  @Test func theIconsComeInThePWGsThreeSizes() throws {
    let (daemon, work) = try daemon(["till": "dir:\(try Tool.temporaryDirectory().path)"])
    defer { _ = daemon.terminate() }
    let run = try IPPClient.request(
      uri(daemon, "till"), operation: "Get-Printer-Attributes", ["ATTR keyword requested-attributes printer-icons"])
    let icons = (run.values("printer-icons").first ?? "").split(separator: ",").map(String.init)
    #expect(icons.count == 3, "\(run.output)")
    var sizes: [String] = []
    for (index, icon) in icons.enumerated() {
      let file = work.appendingPathComponent("icon-\(index).png")
      let fetched = try Tool.run("curl", ["-s", "-f", "-o", file.path, icon])
      #expect(fetched.status == 0, "\(icon)")
      let header = try Tool.run(
        "python3",
        [
          "-c",
          "import struct,sys; d=open(sys.argv[1],'rb').read(24); assert d[:8]==b'\\x89PNG\\r\\n\\x1a\\n'; "
            + "print('%dx%d' % struct.unpack('>II', d[16:24]))", file.path,
        ])
      sizes.append(header.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }
    #expect(sizes == ["48x48", "128x128", "512x512"], "\(sizes)")
  }

  /// The rows of a printed page that have ink.
  func inkedRows(_ page: SimulatedPage) -> [Int] { page.rows.indices.filter { page.rows[$0].contains(true) } }

  /// How many dot rows `millimetres` are at `dpi`.
  func rows(_ millimetres: Double, dpi: Int = 180) -> Int { Int((millimetres / 25.4 * Double(dpi)).rounded()) }

  /// CUPS as the client: `lpadmin -m everywhere` makes a driverless queue from the printer's
  /// attributes alone — the PPD has the roll's width and a range of lengths — and `lp` of a PDF
  /// whose page is 80 × 143.7 mm (with that page size, as `-o PageSize=Custom.…`), of PWG and
  /// Apple raster pages and of a JPEG logo print on the TM-T88VI simulator at their own length
  /// (±1 dot row), 512 dots wide, the logo dithered.
  @Test func cupsPrintsToItDriverlesslyAtTheDocumentsLength() throws {
    let simulator = try ThermalPrinterSimulator(model: .epsonTMT88)
    let (daemon, work) = try daemon(
      ["till": "socket://127.0.0.1:\(simulator.port)"], models: ["till": "epson-tm-t88vi"])
    defer { _ = daemon.terminate() }
    let cups = try PrintRig.privateCUPS()
    try PrintRig.addEverywhereQueue("R", uri: uri(daemon, "till"), server: cups.server, directory: cups.directory)
    let ppd = try String(contentsOf: cups.directory.appendingPathComponent("ppd/R.ppd"), encoding: .utf8)
    #expect(ppd.contains("*PageSize 80x200mm:"), "a fixed size of the roll's width")
    #expect(ppd.contains("*ParamCustomPageSize Width: 1 points 226.7"), "the custom width is the roll's (80 mm)")
    #expect(ppd.contains("*ParamCustomPageSize Height: 2 points 28.3"), "custom lengths from 10 mm")
    #expect(ppd.contains("*DefaultResolution: 180dpi"))
    #expect(ppd.contains("*HWMargins: \"10.9"), "the head's 72.2 mm centred on 80 mm: \(ppd.prefix(0))")
    let lp = { (arguments: [String]) throws in
      let result = try Tool.run("lp", ["-d", "R"] + arguments, environment: ["CUPS_SERVER": cups.server])
      #expect(result.status == 0, "lp \(arguments): \(result.stderr)")
    }
    func printed(_ count: Int) -> Bool {
      waitUntil(seconds: 60) { simulator.pages.filter { $0.cut != nil }.count >= count }
    }

    // A PDF page of 80 × 143.7 mm: pango-view's text with 9 pt margins, its page made that long.
    let text = work.appendingPathComponent("receipt.txt")
    try (1...24).map { "Line \($0)  Brötchen 0,45 €" }.joined(separator: "\n").write(
      to: text, atomically: true, encoding: .utf8)
    let small = work.appendingPathComponent("small.pdf")
    let pdf = work.appendingPathComponent("receipt.pdf")
    #expect(
      try Tool.run("pango-view", ["--dpi=72", "--margin=9", "--width=209", "-q", "--output=\(small.path)", text.path])
        .status == 0)
    #expect(try Tool.run("pdftocairo", ["-pdf", "-paperw", "227", "-paperh", "407", small.path, pdf.path]).status == 0)
    let size = try #require(try Tool.pdfPageSizes(pdf).first)
    let length = size.height / 72 * 25.4
    try lp(["-o", String(format: "PageSize=Custom.80x%.2fmm", length), pdf.path])
    #expect(printed(1))
    let page = try #require(simulator.pages.first)
    #expect(page.width == 512)
    #expect(abs(page.rows.count - rows(length)) <= 1, "\(page.rows.count) rows for \(length) mm")
    #expect(!inkedRows(page).isEmpty)

    // PWG and Apple raster pages sent as they are (`-o raw`: the printer tells the format by its
    // bytes); their black bars are the page's first and last rows.
    for (format, type) in [("pwg", "black_1"), ("pwg", "sgray_8"), ("urf", "W8")] {
      let count = simulator.pages.count
      let file = try IPPClient.rasterPage(format, type: type, dpi: 180, width: 80, length: 143.7)
      try lp(["-o", "raw", file.path])
      #expect(printed(count + 1), "\(format) \(type)")
      guard simulator.pages.count > count else { continue }
      let page = simulator.pages[count]
      let inked = inkedRows(page)
      #expect(page.width == 512)
      #expect(abs(page.rows.count - rows(143.7)) <= 1, "\(format) \(type): \(page.rows.count) rows")
      #expect(inked.first == 0 && inked.last == page.rows.count - 1, "\(format) \(type): the bars at the ends")
      let band = page.rows[page.rows.count / 2]
      let black = Double(band.filter { $0 }.count) / Double(band.count)
      #expect(black > 0.3 && black < 0.7, "\(format) \(type): the 50 % gray band is dots of both inks (\(black))")
    }

    // A JPEG logo (a black-to-white ramp), scaled to the roll and dithered: every column band
    // between the ends has both inks, darker on the left.
    let ramp = work.appendingPathComponent("ramp.jpg")
    #expect(try Tool.run("/bin/sh", ["-c", "pgmramp -lr 400 100 | pnmtojpeg > \(ramp.path)"]).status == 0)
    let count = simulator.pages.count
    try lp([ramp.path])
    #expect(printed(count + 1))
    if simulator.pages.count > count {
      let page = simulator.pages[count]
      let middle = page.rows[page.rows.count / 2]
      func black(_ range: Range<Int>) -> Double { Double(middle[range].filter { $0 }.count) / Double(range.count) }
      #expect(page.rows.count > 100, "the ramp is 80 mm × 20 mm on the roll: \(page.rows.count) rows")
      #expect(black(64..<128) > black(384..<448) + 0.3, "darker on the left: \(black(64..<128)) vs \(black(384..<448))")
      #expect(black(224..<288) > 0.2 && black(224..<288) < 0.8, "the middle gray is dithered: \(black(224..<288))")
    }
  }

  /// Roll trimming: `lp receipt.pdf` with no options (the queue's default 80 × 200 mm page, as a
  /// desktop's, Windows' or Android's default job) prints at the receipt's own length (±1 mm),
  /// dot for dot the page sent with its own size (`-o PageSize=Custom.…`); a printer with
  /// `printerTrimRoll` off prints the whole 200 mm (a pre-printed form's blank end is the form's).
  @Test func aDefaultJobEndsAtTheReceiptsOwnLength() throws {
    let (till, forms) = (
      try ThermalPrinterSimulator(model: .epsonTMT88), try ThermalPrinterSimulator(model: .epsonTMT88)
    )
    let (daemon, work) = try daemon(
      ["till": "socket://127.0.0.1:\(till.port)", "forms": "socket://127.0.0.1:\(forms.port)"],
      models: ["till": "epson-tm-t88vi", "forms": "epson-tm-t88vi"], settings: #", "printerTrimRoll": {"forms": false}"#
    )
    defer { _ = daemon.terminate() }
    let cups = try PrintRig.privateCUPS()
    for (queue, printer) in [("T", "till"), ("F", "forms")] {
      try PrintRig.addEverywhereQueue(queue, uri: uri(daemon, printer), server: cups.server, directory: cups.directory)
    }
    func lp(_ arguments: [String]) throws {
      let result = try Tool.run("lp", arguments, environment: ["CUPS_SERVER": cups.server])
      #expect(result.status == 0, "lp \(arguments): \(result.stderr)")
    }
    func printed(_ simulator: ThermalPrinterSimulator, _ count: Int) -> SimulatedPage? {
      guard waitUntil(seconds: 60, { simulator.pages.filter { $0.cut != nil }.count >= count }) else { return nil }
      return simulator.pages[count - 1]
    }

    // A receipt as pango-view sets it: 18 lines with 9 pt margins, the page as long as the text.
    let text = work.appendingPathComponent("receipt.txt")
    try (1...18).map { "Line \($0)  Brötchen 0,45 €" }.joined(separator: "\n").write(
      to: text, atomically: true, encoding: .utf8)
    let pdf = work.appendingPathComponent("receipt.pdf")
    #expect(
      try Tool.run("pango-view", ["--dpi=72", "--margin=9", "--width=208", "-q", "--output=\(pdf.path)", text.path])
        .status == 0)
    let size = try #require(try Tool.pdfPageSizes(pdf).first)
    let length = size.height / 72 * 25.4
    #expect(length < 150, "a receipt shorter than the default page: \(length) mm")

    try lp(["-d", "T", pdf.path])
    let trimmed = try #require(printed(till, 1))
    try lp(["-d", "T", "-o", String(format: "PageSize=Custom.%.2fx%.2fmm", size.width / 72 * 25.4, length), pdf.path])
    let own = try #require(printed(till, 2))
    // The receipt's own length, less at most the space between its text's line boxes and their
    // ink (the margins are counted from the ink): never longer, at most 2 mm shorter.
    #expect(
      trimmed.rows.count <= rows(length) + 1 && trimmed.rows.count >= rows(length - 2),
      "\(trimmed.rows.count) rows for the receipt's \(length) mm (\(rows(length)) rows)")
    #expect(trimmed.width == own.width)
    // The same dots: the printed rows of both, from their first, differ in few dots (cupsd
    // centred the page on 200 mm, which may put it half a dot lower before poppler draws it).
    let (a, b) = (inkedRows(trimmed), inkedRows(own))
    #expect(abs(a.count - b.count) <= 2, "\(a.count) and \(b.count) printed rows")
    // Unscaled and unmoved within itself: the same columns inked, and the same rows (lines of
    // text and the gaps between them) from the first printed row on. Dot for dot equality is not
    // asked: cupsd may send the default job as raster it drew itself, anti-aliased otherwise.
    func columns(_ page: SimulatedPage) -> [Int] {
      [
        (0..<page.width).first { x in page.rows.contains { $0[x] } } ?? -1,
        (0..<page.width).last { x in page.rows.contains { $0[x] } } ?? -1,
      ]
    }
    #expect(zip(columns(trimmed), columns(own)).allSatisfy { abs($0 - $1) <= 1 }, "\(columns(trimmed)) \(columns(own))")
    if let top = a.first, let ownTop = b.first {
      let (mine, theirs) = (Set(a.map { $0 - top }), Set(b.map { $0 - ownTop }))
      let differing = mine.symmetricDifference(theirs).count
      #expect(Double(differing) <= 0.02 * Double(theirs.count), "\(differing) of \(theirs.count) printed rows differ")
    }

    try lp(["-d", "F", pdf.path])
    let whole = try #require(printed(forms, 1))
    #expect(abs(whole.rows.count - rows(200)) <= 1, "printerTrimRoll off: \(whole.rows.count) rows, the default 200 mm")
  }

  /// A page made as the seed's iOS `ContinuousPageRenderer` makes it — attributed text set in
  /// the printable width minus 1/8" margins, the page as long as the text's height plus 18 pt —
  /// here with Pango and cairo (`pango-view`), sent as AirPrint sends it (Print-Job with the
  /// roll's media-col at that length), comes out of the simulator at that length.
  @Test func aPageMadeLikeTheSeedsRendererPrintsAtItsCutLength() throws {
    let simulator = try ThermalPrinterSimulator(model: .epsonTMT88)
    let (daemon, work) = try daemon(
      ["till": "socket://127.0.0.1:\(simulator.port)"], models: ["till": "epson-tm-t88vi"])
    defer { _ = daemon.terminate() }
    let text = work.appendingPathComponent("order.txt")
    try "Coffee\t2.50\nCroissant\t1.80\nTotal\t4.30\n\nThank you!".write(to: text, atomically: true, encoding: .utf8)
    let pdf = work.appendingPathComponent("seed.pdf")
    // The TM-T88VI prints 512 dots = 72.2 mm = 204.8 pt; less the two 9 pt margins: 186 pt.
    #expect(
      try Tool.run("pango-view", ["--dpi=72", "--margin=9", "--width=186", "-q", "--output=\(pdf.path)", text.path])
        .status == 0)
    let size = try #require(try Tool.pdfPageSizes(pdf).first)
    let cutLength = size.height  // text height + 18 pt, as pango-view sets the page
    let hundredths = Int((cutLength / 72 * 2540).rounded())
    _ = try IPPClient.printJob(
      uri(daemon, "till"), file: pdf, format: "application/pdf",
      attributes: [
        "ATTR collection media-col {",
        "  MEMBER collection media-size {",
        "    MEMBER integer x-dimension 8000",
        "    MEMBER integer y-dimension \(hundredths)",
        "  }",
        "}",
      ])
    #expect(waitUntil(seconds: 60) { simulator.pages.contains { $0.cut != nil } })
    let page = try #require(simulator.pages.first)
    #expect(abs(page.rows.count - rows(cutLength / 72 * 25.4)) <= 1, "\(page.rows.count) rows for \(cutLength) pt")
  }

  /// Out of paper: the IPP printer says `media-empty` and stops, the job waits (pending, printer
  /// stopped); refilled, it prints once. A `kill -9` after Print-Job answered loses nothing: the
  /// job prints once after the restart.
  @Test func paperOutHoldsTheJobAndACrashLosesNothing() throws {
    let simulator = try ThermalPrinterSimulator(model: .epsonTMT88)
    simulator.set(paperEnd: true)
    let (daemon, work) = try daemon(
      ["till": "socket://127.0.0.1:\(simulator.port)"], models: ["till": "epson-tm-t88vi"])
    defer { _ = daemon.terminate() }
    let page = try IPPClient.rasterPage("pwg", type: "black_1", dpi: 180, width: 80, length: 50)
    let id = try IPPClient.printJob(uri(daemon, "till"), file: page, format: "image/pwg-raster")
    func printerReasons() -> [String] {
      let run = try? IPPClient.request(
        uri(daemon, "till"), operation: "Get-Printer-Attributes",
        ["ATTR keyword requested-attributes printer-state,printer-state-reasons"])
      return (run?.values("printer-state") ?? []) + (run?.values("printer-state-reasons") ?? [])
    }
    func jobState() -> [String] {
      let run = try? IPPClient.request(
        uri(daemon, "till"), operation: "Get-Job-Attributes", ["ATTR integer job-id \(id)"])
      return (run?.values("job-state") ?? []) + (run?.values("job-state-reasons") ?? [])
    }
    // PWG 5100.9's media-empty and RFC 8011 5.4.12's media-needed (what PWG's self-certification
    // looks for, I-20.1), both stopping the printer.
    #expect(
      waitUntil(seconds: 30) { printerReasons() == ["stopped", "media-empty-error,media-needed-error"] },
      "\(printerReasons())")
    #expect(jobState() == ["pending", "printer-stopped"], "\(jobState())")
    // PWG 5100.9's printer-alert, in the Printer MIB's words (IANA-PRINTER-MIB: PrtAlertCodeTC
    // inputMediaSupplyEmpty(808), PrtAlertGroupTC input(8), PrtAlertSeverityLevelTC critical(3),
    // PrtAlertTrainingLevelTC untrained(3)), one description beside it.
    let alerts = try IPPClient.request(
      uri(daemon, "till"), operation: "Get-Printer-Attributes",
      ["ATTR keyword requested-attributes printer-alert,printer-alert-description"])
    let alert = alerts.values("printer-alert").first ?? ""
    let fields = Dictionary(
      alert.split(separator: ";").map { $0.split(separator: "=", maxSplits: 1).map(String.init) }.filter {
        $0.count == 2
      }.map { ($0[0], $0[1]) }
    ) { a, _ in a }
    #expect(fields["code"] == "inputMediaSupplyEmpty" && fields["group"] == "input", "\(alerts.output)")
    #expect(fields["severity"] == "critical" && fields["training"] == "untrained", "\(alerts.output)")
    #expect(alerts.values("printer-alert-description").count == 1, "\(alerts.output)")
    daemon.kill9()
    try daemon.start()
    simulator.set(paperEnd: false)
    #expect(
      waitUntil(seconds: 60) { jobState().first == "completed" },
      "\(jobState()); the simulator refused: \(simulator.refusedCommands)")
    #expect(printerReasons() == ["idle", "none"], "the simulator refused: \(simulator.refusedCommands)")
    #expect(simulator.pages.count == 1, "printed once: \(simulator.pages.count) pages")
    _ = work
  }

  /// Each printer is advertised over DNS-SD as `_ipp._tcp` with the `_universal` (AirPrint) and
  /// `_print` subtypes and the TXT keys AirPrint clients read — as avahi-browse sees them — and
  /// its name is held under `_printer._tcp` with port 0 (no LPD; Bonjour Printing Specification,
  /// as PAPPL's dnssd.c registers it). `product` is one parenthesised string even for a model
  /// whose title has parentheses of its own.
  @Test func printersAreAdvertisedAsAirPrintRollPrinters() throws {
    _ = try PrintRig.get()  // dbus and avahi-daemon
    let directory = try Tool.temporaryDirectory()
    let (daemon, _) = try daemon(
      ["archive": "dir:\(directory.path)", "kitchen": "dir:\(directory.path)"], models: ["kitchen": "generic-80mm"],
      settings: #", "ippAdvertise": true"#)
    defer { _ = daemon.terminate() }
    func browse(_ type: String, _ printer: String = "archive") -> [String] {
      ((try? Tool.run("avahi-browse", ["-rtp", type]).stdout) ?? "").split(separator: "\n").map(String.init)
        .filter { $0.hasPrefix("=") && $0.contains("\(printer)\\032\\064\\032") }
    }
    #expect(waitUntil(seconds: 20) { !browse("_ipp._tcp").isEmpty }, "avahi-browse finds the printer")
    let line = browse("_ipp._tcp").first ?? ""
    for key in [
      "\"rp=ipp/print/archive\"", "\"kind=receipt,roll\"", "\"pdl=application/pdf,image/pwg-raster,image/urf",
      "\"URF=V1.4,", "\"UUID=", "\"txtvers=1\"", "\"qtotal=1\"", "\"Color=F\"", "\"ty=Receipt printer (receipt)\"",
      "\"product=(Receipt printer)\"",
    ] {
      #expect(line.contains(key), "TXT \(key) in \(line)")
    }
    #expect(line.contains(";\(daemon.ippPort ?? 0);"), "the IPP port: \(line)")
    #expect(!browse("_universal._sub._ipp._tcp").isEmpty, "the AirPrint subtype")
    #expect(!browse("_print._sub._ipp._tcp").isEmpty, "the IPP Everywhere subtype")
    for printer in ["archive", "kitchen"] {
      #expect(
        waitUntil(seconds: 20) { browse("_printer._tcp", printer).first?.contains(";0;") == true },
        "\(printer)'s name is held under _printer._tcp with port 0: \(browse("_printer._tcp", printer))")
    }
    #expect(waitUntil(seconds: 20) { !browse("_ipp._tcp", "kitchen").isEmpty })
    let kitchen = browse("_ipp._tcp", "kitchen").first ?? ""
    let product = kitchen.split(separator: "\"").first { $0.hasPrefix("product=") }.map(String.init) ?? ""
    #expect(product == "product=(Generic 80 mm ESC/POS printer, 203 dpi)", "\(kitchen)")
    // IPPS on the same port: the same keys plus `TLS` (its least version), an https page.
    #expect(waitUntil(seconds: 20) { !browse("_ipps._tcp").isEmpty }, "the printer under _ipps._tcp")
    let secure = browse("_ipps._tcp").first ?? ""
    #expect(secure.contains("\"TLS=1.2\""), "\(secure)")
    #expect(secure.contains("\"adminurl=https://"), "\(secure)")
    #expect(secure.contains(";\(daemon.ippPort ?? 0);"), "the same port: \(secure)")
    #expect(!browse("_universal._sub._ipps._tcp").isEmpty, "the AirPrint subtype over TLS")
  }

  /// IPP requests are untrusted input: a document over `ippMaxDocumentBytes` is HTTP 413,
  /// attributes over 256 KiB and collections nested past libcups' depth are IPP bad requests,
  /// another content type is 415, a raster page claiming a million pixels a side fails alone
  /// (the next job prints) — and the daemon answers `/healthz` after each.
  @Test func hostileIPPRequestsAreRefusedAndTheDaemonStaysUp() throws {
    let directory = try Tool.temporaryDirectory()
    let (daemon, _) = try daemon(["archive": "dir:\(directory.path)"], settings: #", "ippMaxDocumentBytes": 1048576"#)
    defer { _ = daemon.terminate() }
    let port = try #require(daemon.ippPort)
    let printer = "ipp://127.0.0.1:\(port)/ipp/print/archive"
    func healthy() -> Bool { (try? daemon.request("GET", "/healthz", timeout: 5).status) == 200 }
    func status(_ answer: (status: Int, body: Data)) -> Int {
      answer.body.count >= 4 ? Int(answer.body[2]) << 8 | Int(answer.body[3]) : -1
    }

    let big = IPPClient.rawRequest(operation: 0x02, uri: printer, document: Data(count: 2 << 20))
    #expect(try IPPClient.post(port: port, path: "/ipp/print/archive", body: big).status == 413)
    #expect(healthy())

    let many = (0..<2000).reduce(into: Data()) { data, i in
      data += IPPClient.attribute(0x44, "x-\(i)", Data(repeating: 0x61, count: 200))
    }
    let crowded = try IPPClient.post(
      port: port, path: "/ipp/print/archive", body: IPPClient.rawRequest(operation: 0x0B, uri: printer, more: many))
    #expect(crowded.status == 200 && status(crowded) == 0x0400, "attributes over 256 KiB: a bad request")
    #expect(healthy())

    var nested = Data()
    for _ in 0..<5000 {
      nested += IPPClient.attribute(0x34, "", Data()) + IPPClient.attribute(0x4A, "", Data("m".utf8))
    }
    let deep = try IPPClient.post(
      port: port, path: "/ipp/print/archive",
      body: IPPClient.rawRequest(
        operation: 0x0B, uri: printer, more: IPPClient.attribute(0x34, "media-col", Data()) + nested))
    #expect(deep.status == 200 && status(deep) == 0x0400, "nested collections: a bad request")
    #expect(healthy())

    #expect(
      try IPPClient.post(port: port, path: "/ipp/print/archive", body: Data("{}".utf8), contentType: "text/plain")
        .status == 415)

    let page = try IPPClient.rasterPage("pwg", type: "sgray_8", dpi: 203, width: 80, length: 20)
    var huge = try Data(contentsOf: page)
    for (offset, value) in [(372, UInt32(1_000_000)), (376, UInt32(1_000_000)), (392, UInt32(1_000_000))] {
      withUnsafeBytes(of: value.bigEndian) { huge.replaceSubrange(4 + offset..<8 + offset, with: $0) }
    }
    let hugeFile = directory.appendingPathComponent("huge.pwg")
    try huge.write(to: hugeFile)
    let bad = try IPPClient.printJob(printer, file: hugeFile, format: "image/pwg-raster")
    let good = try IPPClient.printJob(printer, file: page, format: "image/pwg-raster")
    func state(_ id: Int) -> [String] {
      let run = try? IPPClient.request(printer, operation: "Get-Job-Attributes", ["ATTR integer job-id \(id)"])
      return (run?.values("job-state") ?? []) + (run?.values("job-state-reasons") ?? [])
    }
    #expect(waitUntil(seconds: 30) { state(good).first == "completed" }, "\(state(good))")
    #expect(state(bad) == ["aborted", "aborted-by-system,document-format-error"], "\(state(bad))")
    #expect(healthy())
  }

  /// Cancel-Job: a queued job is canceled only by the user who sent it (`requesting-user-name`),
  /// never a job of the REST API; a printed one cannot be.
  @Test func onlyTheSenderCancelsAJob() throws {
    let simulator = try ThermalPrinterSimulator(model: .epsonTMT88)
    simulator.set(paperEnd: true)  // nothing prints: the jobs stay queued
    let (daemon, _) = try daemon(["till": "socket://127.0.0.1:\(simulator.port)"], models: ["till": "epson-tm-t88vi"])
    defer { _ = daemon.terminate() }
    let printer = uri(daemon, "till")
    let page = try IPPClient.rasterPage("pwg", type: "black_1", dpi: 180, width: 80, length: 30)
    let ana = try IPPClient.printJob(printer, file: page, format: "image/pwg-raster", user: "ana")
    let rest = try daemon.request(
      "POST", "/v1/jobs", body: Data(#"{"template": "receipt", "data": {"items": []}}"#.utf8), timeout: 30)
    let restJob = try #require(rest.json["sequence"] as? Int)
    func cancel(_ id: Int, as user: String, expecting status: String) -> Bool {
      (try? IPPClient.request(
        printer, operation: "Cancel-Job", ["ATTR integer job-id \(id)"], status: status, user: user))?.failures.isEmpty
        ?? false
    }
    #expect(cancel(ana, as: "bob", expecting: "client-error-not-authorized"), "another user")
    #expect(cancel(restJob, as: "ana", expecting: "client-error-not-authorized"), "a REST job")
    #expect(cancel(ana, as: "ana", expecting: "successful-ok"), "its sender")
    let state = try IPPClient.request(printer, operation: "Get-Job-Attributes", ["ATTR integer job-id \(ana)"])
    #expect(state.values("job-state") == ["canceled"])
    #expect(cancel(ana, as: "ana", expecting: "client-error-not-possible"), "a canceled job stays canceled")
  }
}
