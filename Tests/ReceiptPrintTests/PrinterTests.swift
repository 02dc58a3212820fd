import Foundation
import ReceiptLayout
import ReceiptModel
import ReceiptPrint
import ReceiptTestSupport
import Testing

/// Printer kinds behind one protocol: addresses open the right kind, a directory printer writes
/// one complete PDF per job and never a second time, capabilities refuse paper that does not
/// fit before anything is drawn, and CUPS' states come from one table.
@Suite struct PrinterTests {
  static let engine = try! ReceiptLayoutEngine()

  static func receipt(_ text: String = "Corner Café\nTotal\t11.04 €") throws -> LaidOutReceipt {
    try engine.layout(ReceiptDocument(blocks: [.text(AttributedText(text))]))
  }

  @Test func addressesOpenTheirKind() throws {
    let socket = try #require(try PrinterAddress.open("socket://127.0.0.1:9100") as? SocketPrinter)
    #expect(socket.name == "socket://127.0.0.1:9100" && socket.capabilities.format == .escpos)
    #expect(try socket.status().state == .unavailable, "nothing listens on 127.0.0.1:9100 here")
    let directory = try #require(try PrinterAddress.open("dir:/tmp/receipts") as? DirectoryPrinter)
    #expect(directory.directory.path == "/tmp/receipts" && directory.capabilities.format == .pdf)
    for bad in ["socket://printer:0", "socket://printer:99999", "socket://", "dir:", "cups:"] {
      #expect(throws: PrintError.badAddress(bad)) { try PrinterAddress.open(bad) }
    }
    #expect(PrintError.badAddress("dir:").isPermanent)
  }

  /// Every kind is in one list: each parses the addresses it documents, writes them back, says
  /// how the queue delivers to it, and no two kinds claim a prefix.
  @Test func everyPrinterKindIsOneTypeInOneList() throws {
    let examples: [String: (String, PrinterDelivery)] = [
      "cups:roll": ("cups:roll", .spooler(queue: "roll", server: "127.0.0.1:631")),
      "socket://10.0.0.42": ("socket://10.0.0.42:9100", .raw),
      "usb:/dev/usb/lp0": ("usb:/dev/usb/lp0", .raw),
      "serial:/dev/ttyUSB0?baud=115200": ("serial:/dev/ttyUSB0?baud=115200&flow=none", .raw),
      "dir:/tmp/receipts": ("dir:/tmp/receipts", .files(directory: URL(fileURLWithPath: "/tmp/receipts"))),
      "mail:": ("mail:", .mail(recipient: nil)),
      "mail:books@cafe.example": ("mail:books@cafe.example", .mail(recipient: "books@cafe.example")),
    ]
    for (text, (address, delivery)) in examples {
      let parsed = try #require(PrinterAddress.parse(text, bareQueues: false, server: "127.0.0.1:631"), "\(text)")
      #expect(parsed.address == address && parsed.delivery == delivery, "\(text)")
      #expect(PrinterAddress.parse(parsed.address, server: "127.0.0.1:631") == parsed, "\(text) round-trips")
    }
    let prefixes = PrinterAddress.kinds.flatMap { $0.prefixes }
    #expect(Set(prefixes).count == prefixes.count)
    #expect(prefixes.allSatisfy { prefix in PrinterAddress.syntax.contains { $0.hasPrefix(prefix) } })
    #expect(PrinterAddress.parse("roll") == .cups(queue: "roll"), "a bare name is a CUPS queue")
    #expect(PrinterAddress.parse("roll", bareQueues: false) == nil)
    #expect(PrinterAddress.parse("mail:anna@example.com,ben@example.com", bareQueues: false) == nil, "one address")
    #expect(PrinterAddress.parse("cups:roll", server: "a") != PrinterAddress.parse("cups:roll", server: "b"))
    #expect(PrinterAddress.socket(host: "10.0.0.42", port: 9100) != .directory(URL(fileURLWithPath: "/x")))
  }

  @Test func aDirectoryPrinterWritesOneCompletePDFPerJobAndNeverASecond() throws {
    let dir = try Tool.temporaryDirectory()
    let printer = DirectoryPrinter(directory: dir)
    #expect(try printer.status().state == .idle)
    let job = PrintJob(name: "00000001-a/b", copies: 2)
    #expect(try printer.submit(try Self.receipt(), job: job) == nil)
    let file = printer.file(for: job)
    #expect(file.lastPathComponent == "00000001-a_b.pdf", "no path separator from a job name")
    let text = try Tool.run("pdftotext", [file.path, "-"]).stdout
    #expect(text.contains("Corner Café"))
    #expect(try Tool.run("pdfinfo", [file.path]).stdout.contains("Pages:           1"), "one copy per file")
    // A second submit (a retry after a crash) leaves the file as it is.
    let before = try Data(contentsOf: file)
    _ = try printer.submit(try Self.receipt("Something else"), job: job)
    #expect(try Data(contentsOf: file) == before)
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == [file.lastPathComponent])
    let missing = DirectoryPrinter(directory: dir.appendingPathComponent("nope"))
    #expect(try missing.status().state == .unavailable)
    #expect(throws: PrintError.self) { try missing.submit(try Self.receipt(), job: PrintJob(name: "x")) }
  }

  @Test func capabilitiesRefusePaperThatDoesNotFitBeforeDrawing() throws {
    let receipt = try Self.receipt()
    let roll58 = PrinterCapabilities(
      format: .pwgRaster, resolution: 203,
      media: MediaSupport(names: ["oe_roll58_58x200mm", "custom_min_58x20mm", "custom_max_58x3000mm"]))
    #expect(throws: PrintError.self) { try roll58.check(receipt, printer: "counter") }
    do {
      try roll58.check(receipt, printer: "counter")
    } catch let error as PrintError {
      guard case .mediaNotSupported(let name, let reason) = error else { throw error }
      #expect(name == "counter" && reason.contains("80"), "\(reason)")
      #expect(error.isPermanent)
    }
    let roll80 = PrinterCapabilities(
      format: .pwgRaster, media: MediaSupport(names: ["custom_min_80x20mm", "custom_max_80x3000mm"]))
    try roll80.check(receipt, printer: "counter")
    try PrinterCapabilities(format: .escpos).check(receipt, printer: "raw")  // nothing to ask: no check
  }

  @Test func cupsStatesComeFromTheIPPTable() {
    #expect(
      (3...9).map { JobState(ipp: $0) } == [.pending, .held, .processing, .stopped, .canceled, .aborted, .completed])
    #expect(JobState(ipp: 42) == .unknown && PrinterState(ipp: 42) == .unknown)
    #expect((3...5).map { PrinterState(ipp: $0) } == [.idle, .processing, .stopped])
    #expect(JobState.allCases.filter(\.isActive) == [.pending, .held, .processing, .stopped])
    #expect(JobState.allCases.filter(\.isFinal) == [.stopped, .canceled, .aborted, .completed])
    let waiting = JobStatus(id: 7, state: .held, reasons: ["printer-stopped", "media-empty"])
    #expect(waiting.explanation(or: "-") == "printer-stopped, media-empty")
    #expect(JobStatus(id: 7, state: .held).explanation(or: "no reason") == "no reason")
  }
}
