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

  @Test func printsToAnIPPEverywherePrinterAtTheExactLength() throws {
    let rig = try PrintRig.get()
    let before = Set(try FileManager.default.contentsOfDirectory(atPath: rig.spool.path))
    let result = try run(rig, ["print", small, "--printer", "roll", "--wait"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(
      result.stdout.contains("roll-") && result.stdout.contains("completed") && result.stdout.contains("pwg-raster"))
    let received = try FileManager.default.contentsOfDirectory(atPath: rig.spool.path).filter {
      !before.contains($0) && $0.hasSuffix(".pwg") && !$0.contains("receipt-job-")  // not the daemon tests' jobs
    }
    try #require(received.count == 1, "\(received)")
    #expect(received[0].contains("receipt-"), "the job name carries the receipt id")
    let pages = try RasterStreamReader.read(Data(contentsOf: rig.spool.appendingPathComponent(received[0])))
    let measure = try Tool.run(receipt, ["measure", small, "--templates", templates, "--json"])
    let dots = (try JSONSerialization.jsonObject(with: measure.output) as! [[String: Any]])[0]["cutLengthDots"] as! Int
    try #require(pages.count == 1)
    #expect(abs(pages[0].header.height - dots) <= 1)
    #expect(pages[0].header.width == 8000 * 203 / 2540)
    let same = pages[0].image == (try RasterStreamReader.read(try reference("pwg")))[0].image
    #expect(same, "the printer received our own PWG render")
  }

  @Test func jobOptionsReachCUPS() throws {
    let rig = try PrintRig.get()
    let result = try run(rig, ["print", small, "--printer", "roll", "-o", "job-priority=90", "--wait"])
    #expect(result.status == 0, "\(result.stderr)")
    // Asked back from cupsd with ipptool (not through receipt's own CUPS client).
    let id = try #require(Int(result.stdout.split(separator: " ")[0].split(separator: "-").last ?? ""))
    let attributes = try Tool.run(
      "ipptool", ["-tv", "ipp://\(rig.server)/printers/roll", "-d", "job=\(id)", Self.getJobAttributes().path])
    #expect(attributes.stdout.contains("job-priority (integer) = 90"), "\(attributes.stdout)")
    let bad = try run(rig, ["print", small, "--printer", "roll", "-o", "novalue"])
    #expect(bad.status == 64 && bad.stderr.contains("key=value"))
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
    #expect(result.stderr.contains("aborted") || result.stderr.contains("stopped"), "\(result.stderr)")
  }

  @Test func aPPDRasterQueueGetsCUPSRasterOfTheExactLength() throws {
    let rig = try PrintRig.get()
    let result = try run(rig, ["print", small, "--printer", "thermal", "--wait"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("cups-raster"))
    let pages = try RasterStreamReader.read(Data(contentsOf: rig.thermalOutput))
    try #require(pages.count == 1)
    let expected = try RasterStreamReader.read(try reference("ras"))[0]
    #expect(pages[0].header.height == expected.header.height, "not Letter/A4, not scaled")
    #expect(pages[0].header.pageSize.length < 400)
    let same = pages[0].image == expected.image
    #expect(same, "the driver received our own CUPS raster render")
  }

  @Test func aRawQueueGetsESCPOSAndTwoCopiesAreTwoReceipts() throws {
    let rig = try PrintRig.get()
    let index = rig.rawListener.count
    let result = try run(rig, ["print", small, "--printer", "raw", "--copies", "2", "--wait"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("escpos"))
    let bytes = try #require(rig.rawListener.connection(index))
    let decoded = try ESCPOSDecoder.decode(bytes, bytesPerLine: 72)
    let single = try ESCPOSDecoder.decode(try reference("escpos"), bytesPerLine: 72)
    #expect(decoded.pages.count == 2)
    #expect(decoded.cuts == [.partial, .partial])
    let same = decoded.pages == single.pages + single.pages
    #expect(same, "the printer received our ESC/POS render twice")
  }

  @Test func aSocketPrinterGetsESCPOSDirectly() throws {
    let rig = try PrintRig.get()
    let index = rig.rawListener.count
    let result = try run(rig, ["print", small, "--printer", "socket://127.0.0.1:\(rig.rawListener.port)"])
    #expect(result.status == 0, "\(result.stderr)")
    let bytes = try #require(rig.rawListener.connection(index))
    let same =
      try ESCPOSDecoder.decode(bytes, bytesPerLine: 72)
      == ESCPOSDecoder.decode(try reference("escpos"), bytesPerLine: 72)
    #expect(same, "the socket printer received our ESC/POS render")
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
