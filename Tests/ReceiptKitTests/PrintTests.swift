import Foundation
import ReceiptPrint
import ReceiptRender
import ReceiptTestSupport
import Testing

/// `receipt print` against a real cupsd and a real IPP printer (ippeveprinter), a PPD raster
/// queue and a raw socket queue, all on loopback.
@Suite(.serialized) struct PrintTests {
  /// The shipped binary (release, static Swift runtime).
  var receipt: String { (try? Tool.shippedBinary()) ?? "receipt-release-binary-missing" }
  var templates: String {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Templates")
      .standardizedFileURL.path
  }
  var small: String { "\(templates)/Examples/small.json" }

  func run(_ rig: PrintRig, _ arguments: [String]) throws -> Tool.Result {
    let extra = arguments.first == "printers" ? [] : ["--templates", templates]
    return try Tool.run(receipt, arguments + extra, environment: ["CUPS_SERVER": rig.server])
  }

  /// Our own PWG render of the example, for comparison.
  func reference(_ format: String, _ extra: [String] = []) throws -> Data {
    let out = try Tool.temporaryDirectory().appendingPathComponent("ref.\(format)")
    let result = try Tool.run(receipt, ["render", small, "--templates", templates, "-o", out.path] + extra)
    #expect(result.status == 0)
    return try Data(contentsOf: out)
  }

  /// The pages of a PWG or CUPS raster stream, read by the reader written from PWG 5102.4
  /// (`Tests/Support/pwg_reader.py`: no libcups, no receipt code).
  static func rasterPages(_ data: Data) throws -> [(header: [String: Any], rows: [[UInt8]])] {
    let reader = Tool.packageRoot.appendingPathComponent("Tests/Support/pwg_reader.py").path
    let result = try Tool.run("python3", [reader], stdin: data)
    guard result.status == 0 else { throw RigError("pwg_reader: \(result.stderr)") }
    return try result.stdout.split(separator: "\n").map { line in
      let page = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
      let bytes = [UInt8](Data(hex: page["rows"] as? String ?? ""))
      let perLine = page["bytesPerLine"] as? Int ?? 1
      return (page, stride(from: 0, to: bytes.count, by: perLine).map { Array(bytes[$0..<$0 + perLine]) })
    }
  }

  /// Runs of rows with ink (lines of text, seen on the paper), given which rows have ink.
  static func inkBands(_ inked: [Bool]) -> Int {
    zip([false] + inked, inked).filter { !$0 && $1 }.count
  }

  /// A 12-line note printed through an IPP Everywhere queue reaches the IPP printer as one PWG
  /// page exactly the length the font's own tables give (README's rule, computed here), 80 mm
  /// wide at 203 dpi, with its 12 lines of text — not Letter, not scaled, not cropped.
  @Test func printsToAnIPPEverywherePrinterAtTheExactLength() throws {
    let rig = try PrintRig.get()
    let before = Set(try FileManager.default.contentsOfDirectory(atPath: rig.spool.path))
    let note = try ExpectedLength.note(lines: 12)
    let expected = try ExpectedLength.plainText(lines: 12)
    let result = try run(rig, ["print", note.path, "--printer", "roll", "--wait"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(
      result.stdout.contains("roll-") && result.stdout.contains("completed") && result.stdout.contains("pwg-raster"))
    let received = try FileManager.default.contentsOfDirectory(atPath: rig.spool.path).filter {
      !before.contains($0) && $0.hasSuffix(".pwg") && !$0.contains("receipt-job-")  // not the daemon tests' jobs
    }
    try #require(received.count == 1, "\(received)")
    #expect(received[0].contains("receipt-"), "the job name carries the receipt id")
    let pages = try Self.rasterPages(Data(contentsOf: rig.spool.appendingPathComponent(received[0])))
    try #require(pages.count == 1)
    let height = try #require(pages[0].header["height"] as? Int)
    #expect(abs(Double(height) - expected.dots) <= 1, "\(height) dot rows for \(expected.dots)")
    #expect(
      pages[0].header["width"] as? Int == 8000 * 203 / 2540 && pages[0].header["resolution"] as? [Int] == [203, 203])
    // black_1: a set bit is black.
    #expect(Self.inkBands(pages[0].rows.map { $0.contains { $0 != 0 } }) == 12, "the 12 lines are on the page")
  }

  /// The shipped template's example through the same queue: the page the IPP printer received is
  /// the PDF preview's length (poppler reads the page size) at 203 dpi.
  @Test func theShippedExampleReachesTheIPPPrinterAtThePreviewsLength() throws {
    let rig = try PrintRig.get()
    let before = Set(try FileManager.default.contentsOfDirectory(atPath: rig.spool.path))
    let result = try run(rig, ["print", small, "--printer", "roll", "--wait"])
    #expect(result.status == 0, "\(result.stderr)")
    let received = try FileManager.default.contentsOfDirectory(atPath: rig.spool.path).filter {
      !before.contains($0) && $0.hasSuffix(".pwg") && !$0.contains("receipt-job-")
    }
    try #require(received.count == 1, "\(received)")
    let pdf = try Tool.temporaryDirectory().appendingPathComponent("small.pdf")
    try Data(try reference("pdf")).write(to: pdf)
    let length = try #require(try Tool.pdfPageSizes(pdf).first).height
    let pages = try Self.rasterPages(Data(contentsOf: rig.spool.appendingPathComponent(received[0])))
    try #require(pages.count == 1)
    let height = try #require(pages[0].header["height"] as? Int)
    #expect(abs(Double(height) - length * 203 / 72) <= 1, "\(height) dot rows for \(length) pt")
  }

  @Test func jobOptionsReachCUPS() throws {
    let rig = try PrintRig.get()
    let result = try run(rig, ["print", small, "--printer", "roll", "-o", "job-priority=90", "--wait"])
    try #require(result.status == 0, "\(result.stderr)")
    // Asked back from cupsd with ipptool (not through receipt's own CUPS client).
    let id = try #require(Int(result.stdout.split(separator: " ").first?.split(separator: "-").last ?? ""))
    let attributes = try Tool.run(
      "ipptool", ["-tv", "ipp://\(rig.server)/printers/roll", "-d", "job=\(id)", Self.getJobAttributes().path])
    #expect(attributes.stdout.contains("job-priority (integer) = 90"), "\(attributes.stdout)")
    let bad = try run(rig, ["print", small, "--printer", "roll", "-o", "novalue"])
    #expect(bad.status == 64 && bad.stderr.contains("key=value"))
  }

  /// What cupsd holds of a job, asked with ipptool (not receipt's CUPS client): its name is
  /// `receipt-<id> <title>`, its document's the same with `_` for spaces, and no `media` was sent
  /// (the raster pages carry their own size).
  @Test func theJobIsNamedAfterTheReceiptAndCarriesNoMedia() throws {
    let rig = try PrintRig.get()
    let result = try run(rig, ["print", small, "--printer", "roll", "--wait"])
    try #require(result.status == 0, "\(result.stderr)")
    let id = try #require(Int(result.stdout.split(separator: " ")[0].split(separator: "-").last ?? ""))
    let attributes = try Tool.run(
      "ipptool", ["-tv", "ipp://\(rig.server)/printers/roll", "-d", "job=\(id)", Self.getJobAttributes().path]
    ).stdout
    let name = try #require(
      attributes.firstMatch(of: /job-name \([a-zA-Z]+\) = ([^\n]*)/)?.output.1,
      "\(attributes.split(separator: "\n").filter { $0.contains("job-") }.joined(separator: "\n"))")
    #expect(name.wholeMatch(of: /receipt-[0-9a-f-]+ .+/) != nil, "\(name)")
    // Its document is named the same without spaces: Debian 12's cupsd 2.4.2-3+deb12u10 crashes
    // starting a job whose document-name has one (this job would never have completed).
    let document = attributes.firstMatch(of: /document-name-supplied \([a-zA-Z]+\) = ([^\n]*)/)?.output.1
    #expect(
      document.map(String.init) == name.replacingOccurrences(of: " ", with: "_"), "\(String(describing: document))")
    #expect(!attributes.contains("media ("), "no media attribute: \(attributes)")
    #expect(!attributes.contains("media-col ("), "no media-col attribute")
  }

  /// Without `--printer` the CUPS default is used — here the user's (`LPDEST`, which libcups
  /// reads before `lpoptions` and the server's default).
  @Test func withoutAPrinterTheCUPSDefaultPrints() throws {
    let rig = try PrintRig.get()
    let note = try ExpectedLength.note(lines: 1)
    let result = try Tool.run(
      receipt, ["print", note.path, "--wait"], environment: ["CUPS_SERVER": rig.server, "LPDEST": "roll"])
    #expect(
      result.status == 0 && result.stdout.hasPrefix("roll-") && result.stdout.contains("completed"),
      "\(result.stdout)\(result.stderr)")
  }

  /// An ipptool test asking for a job's attributes (`-d job=ID`).
  static func getJobAttributes() throws -> URL {
    let file = try Tool.temporaryDirectory().appendingPathComponent("get-job.test")
    try """
    {
      NAME "Get-Job-Attributes"
      OPERATION Get-Job-Attributes
      GROUP operation-attributes-tag
      ATTR charset attributes-charset utf-8
      ATTR naturalLanguage attributes-natural-language en
      ATTR uri printer-uri $uri
      ATTR integer job-id $job
      ATTR keyword requested-attributes all
      STATUS successful-ok
    }
    """.write(to: file, atomically: true, encoding: .utf8)
    return file
  }

  @Test func copiesAreReceiptsOnIPPAndDriverQueues() throws {
    let rig = try PrintRig.get()
    let reader = Tool.packageRoot.appendingPathComponent("Tests/Support/pwg_reader.py").path
    let before = Set(try FileManager.default.contentsOfDirectory(atPath: rig.spool.path))
    let ipp = try run(rig, ["print", small, "--printer", "roll", "--copies", "2", "--wait"])
    #expect(ipp.status == 0, "\(ipp.stderr)")
    let file = try #require(
      try FileManager.default.contentsOfDirectory(atPath: rig.spool.path).first {
        !before.contains($0) && $0.hasSuffix(".pwg") && !$0.contains("receipt-job-")
      })
    let pages = try Tool.run("python3", [reader], stdin: Data(contentsOf: rig.spool.appendingPathComponent(file)))
    #expect(pages.stdout.split(separator: "\n").count == 2, "two pages (two receipts) at the IPP printer")
    try rig.emptyThermalOutput()
    let driver = try run(rig, ["print", small, "--printer", "thermal", "--copies", "2", "--wait"])
    #expect(driver.status == 0, "\(driver.stderr)")
    let ras = try Tool.run("python3", [reader], stdin: Data(contentsOf: rig.thermalOutput))
    #expect(ras.stdout.split(separator: "\n").count == 2, "two pages at the driver: \(ras.stderr)")
  }

  @Test func aReceiptLongerThanThePrinterTakesIsRefusedWith69() throws {
    let rig = try PrintRig.get()
    // 3,500 mm of text: within receipt's 4 m, beyond the roll printer's 3,000 mm.
    let dir = try Tool.temporaryDirectory()
    let note = dir.appendingPathComponent("long.txt")
    try (0..<850).map { "line \($0)" }.joined(separator: "\n").write(to: note, atomically: true, encoding: .utf8)
    let result = try Tool.run(
      receipt, ["print", note.path, "--printer", "roll"], environment: ["CUPS_SERVER": rig.server])
    #expect(result.status == 69, "\(result.stderr)")
    #expect(result.stderr.contains("printer takes at most 3000 mm"), "\(result.stderr)")
  }

  @Test func aJobThatEndsUnprintedIsExit75WithTheReason() throws {
    let rig = try PrintRig.get()
    let result = try run(rig, ["print", small, "--printer", "broken", "--wait"])
    #expect(result.status == 75, "\(result.stdout)\(result.stderr)")
    // A failing filter stops the job (cupsd's finalize_job: "Job stopped due to filter errors"),
    // whatever the queue's error policy (which is for backends); the reason is the job's message
    // as cupsd keeps it: the driver's own, or — when cupsd ends the job before it has read the
    // driver's last line, as under a full test run's load — its own "Filter failed".
    #expect(
      result.stderr.wholeMatch(
        of: /receipt: error: job \d+ stopped: (the test driver always fails|Filter failed).*\n/) != nil,
      "\(result.stderr)")
  }

  /// `print --wait` on a job CUPS holds (the queue holds every job until released): canceled
  /// there, or the queue stopped meanwhile, the command ends with exit 75 naming the job and
  /// what became of it.
  @Test(arguments: ["canceled", "stopped"]) func aWaitedJobCanceledOrStoppedIsExit75(ending: String) throws {
    let rig = try PrintRig.get()
    try rig.addQueue("cli-held")
    try rig.cupsTool("/usr/sbin/lpadmin", ["-p", "cli-held", "-o", "job-hold-until-default=indefinite"])
    try rig.cupsTool("/usr/sbin/cupsenable", ["cli-held"])
    defer {
      try? rig.cupsTool("/usr/bin/cancel", ["-a", "cli-held"])
      try? rig.cupsTool("/usr/sbin/cupsenable", ["cli-held"])
    }
    let note = try ExpectedLength.note(lines: 2)
    let finished = Collected<Tool.Result>()
    let arguments = ["print", note.path, "--printer", "cli-held", "--wait", "--templates", templates]
    let (binary, server) = (receipt, rig.server)
    Thread.detachNewThread {
      if let result = try? Tool.run(binary, arguments, environment: ["CUPS_SERVER": server]) { finished.add(result) }
    }
    let held = waitUntil(seconds: 30) {
      !((try? Tool.run("lpstat", ["-h", server, "-o", "cli-held"]).stdout) ?? "").isEmpty
    }
    try #require(held, "the job reached the queue and is held")
    if ending == "canceled" {
      try rig.cupsTool("/usr/bin/cancel", ["-a", "cli-held"])
    } else {
      try rig.cupsTool("/usr/sbin/cupsdisable", ["-r", "cover open", "cli-held"])
    }
    try #require(waitUntil(seconds: 60) { finished.count == 1 }, "receipt print --wait ended")
    let result = finished.all[0]
    #expect(result.status == 75, "\(result.stdout)\(result.stderr)")
    #expect(result.stderr.contains(" \(ending)"), "\(result.stderr)")
  }

  /// A driver queue gets CUPS raster (v3) the note's exact length, read by the reader written
  /// from the specification.
  @Test func aPPDRasterQueueGetsCUPSRasterOfTheExactLength() throws {
    let rig = try PrintRig.get()
    let note = try ExpectedLength.note(lines: 7)
    let expected = try ExpectedLength.plainText(lines: 7)
    try rig.emptyThermalOutput()
    let result = try run(rig, ["print", note.path, "--printer", "thermal", "--wait"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("cups-raster"))
    let pages = try Self.rasterPages(Data(contentsOf: rig.thermalOutput))
    try #require(pages.count == 1)
    let height = try #require(pages[0].header["height"] as? Int)
    #expect(abs(Double(height) - expected.dots) <= 1, "\(height) dot rows for \(expected.dots): not Letter, not scaled")
    #expect(Self.inkBands(pages[0].rows.map { $0.contains { $0 != 0 } }) == 7, "the 7 lines are on the page")
  }

  /// A raw queue passes our ESC/POS to the printer; the thermal printer simulator (written from
  /// Epson's references) prints what the queue sent: two receipts, each cut, each the note's
  /// exact length with its 5 lines.
  @Test func aRawQueueGetsESCPOSAndTwoCopiesAreTwoReceipts() throws {
    let rig = try PrintRig.get()
    let index = rig.rawListener.count
    let note = try ExpectedLength.note(lines: 5)
    let expected = try ExpectedLength.plainText(lines: 5)
    let result = try run(rig, ["print", note.path, "--printer", "raw", "--copies", "2", "--wait"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("escpos"))
    let bytes = try #require(rig.rawListener.connection(index))
    let printer = try ThermalPrinterSimulator(model: .generic203())
    let pages = try printer.replay(bytes)
    #expect(printer.refusedCommands.isEmpty, "\(printer.refusedCommands)")
    try #require(pages.count == 2, "two receipts")
    for page in pages {
      #expect(page.cut == "partial")
      #expect(abs(Double(page.rows.count) - expected.dots) <= 1, "\(page.rows.count) dot rows for \(expected.dots)")
      #expect(Self.inkBands(page.rows.map { $0.contains(true) }) == 5)
    }
    #expect(pages[0].rows == pages[1].rows, "the same receipt twice")
  }

  /// `print` to a socket printer: the simulator itself listens, prints one receipt of the note's
  /// exact length and is left with nothing it refused.
  @Test func aSocketPrinterGetsESCPOSDirectly() throws {
    let printer = try ThermalPrinterSimulator(model: .generic203())
    let note = try ExpectedLength.note(lines: 9)
    let expected = try ExpectedLength.plainText(lines: 9)
    let result = try Tool.run(receipt, ["print", note.path, "--printer", "socket://127.0.0.1:\(printer.port)"])
    #expect(result.status == 0, "\(result.stderr)")
    // Until the page is cut: `pages` has the page still arriving too, and between two bands
    // nothing may be pending while the rest is still on its way (a page of 7 of its 9 lines was
    // taken for the receipt once, under a full test run's load).
    #expect(waitUntil(seconds: 30) { printer.pages.first?.cut != nil && printer.pendingCommands == 0 })
    #expect(printer.refusedCommands.isEmpty, "\(printer.refusedCommands)")
    let page = try #require(printer.pages.first)
    #expect(page.cut == "partial" && page.width == 576)
    #expect(abs(Double(page.rows.count) - expected.dots) <= 1, "\(page.rows.count) dot rows for \(expected.dots)")
    #expect(Self.inkBands(page.rows.map { $0.contains(true) }) == 9)
  }

  @Test func printersListsQueuesWithTheirPaths() throws {
    let rig = try PrintRig.get()
    let result = try run(rig, ["printers", "--json"])
    #expect(result.status == 0, "\(result.stderr)")
    let queues = try JSONSerialization.jsonObject(with: result.output) as! [[String: Any]]
    let paths = Dictionary(uniqueKeysWithValues: queues.map { ($0["name"] as! String, $0["path"] as! String) })
    #expect(paths["roll"] == "pwg-raster")
    #expect(paths["thermal"] == "cups-raster")
    #expect(paths["raw"] == "escpos")
    let roll = queues.first { $0["name"] as? String == "roll" }!
    #expect((roll["resolutions"] as! [Int]).contains(203))
    #expect((roll["media"] as! [String]).contains { $0.hasPrefix("custom_max_80x") })
  }

  @Test func errorsAreClearWithTheRightExitCode() throws {
    let rig = try PrintRig.get()
    let unknown = try run(rig, ["print", small, "--printer", "nope"])
    #expect(
      unknown.status == 69 && unknown.stderr.contains("no printer named 'nope'") && unknown.stderr.contains("roll"))
    #expect(unknown.stderr.split(separator: "\n").count == 1)

    let dead = try Tool.run(
      receipt, ["print", small, "--printer", "roll", "--templates", templates],
      environment: ["CUPS_SERVER": "127.0.0.1:1"])
    #expect(dead.status == 69 && dead.stderr.contains("cannot reach the CUPS server"), "\(dead.stderr)")

    let narrow = try run(rig, ["print", small, "--printer", "roll", "--paper", "58mm"])
    #expect(
      narrow.status == 69 && narrow.stderr.contains("58 mm paper but the printer takes 80 mm"), "\(narrow.stderr)")

    try rig.cupsTool("/usr/sbin/cupsdisable", ["-r", "out of paper", "thermal"])
    defer { try? rig.cupsTool("/usr/sbin/cupsenable", ["thermal"]) }
    let stopped = try run(rig, ["print", small, "--printer", "thermal", "--wait"])
    #expect(
      stopped.status == 69 && stopped.stderr.contains("not ready") && stopped.stderr.contains("out of paper"),
      "\(stopped.stderr)")
  }
}

@Test func mediaNamesGiveWidthsAndLengthRanges() {
  let media = MediaSupport(names: [
    "oe_roll80_80x200mm", "custom_min_80x20mm", "custom_max_80x3000mm", "iso_a4_210x297mm", "auto",
  ])
  #expect(media.widths == [80, 210])
  #expect(media.maxLength == 3000 && media.minLength == 20)
  #expect(media.problem(widthMillimetres: 80, lengthMillimetres: 120) == nil)
  #expect(media.problem(widthMillimetres: 58, lengthMillimetres: 120)?.contains("58 mm") == true)
  #expect(media.problem(widthMillimetres: 80, lengthMillimetres: 3500)?.contains("at most 3000 mm") == true)
  #expect(MediaSupport(names: []).problem(widthMillimetres: 58, lengthMillimetres: 1) == nil)
}
