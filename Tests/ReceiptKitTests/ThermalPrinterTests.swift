import Foundation
import ReceiptKit
import ReceiptLayout
import ReceiptPrint
import ReceiptRender
import ReceiptTestSupport
import Testing

/// Receipts printed on the thermal printer simulator (written from Epson's and Star's
/// specifications, independently of the encoders): every shipped model prints its preview dot
/// for dot, ESC/POS or Star raster; prints are confirmed by the printer; paper out mid-receipt
/// and a dropped connection are errors, not "printed"; serial lines at their baud rate.
@Suite(.serialized) struct ThermalPrinterTests {
  static let templates = PrinterModelTests.templates

  /// The shop example laid out for `model` on 80 mm, and its 1-bit preview cropped to the
  /// printable columns (what the printer should print).
  static func shop(_ model: PrinterModel, paper: String = "80mm") throws -> (
    document: ReceiptDocument, expected: [RasterImage]
  ) {
    let engine = try ReceiptEngine()
    let data = try Data(contentsOf: templates.appendingPathComponent("Examples/small.json"))
    let roll = try #require(Paper(parsing: paper))
    let setup = try #require(model.printHead.fitting(PageSetup(paper: roll)))
    var document = try engine.templateDocument(
      template: "receipt", data: data, templates: templates,
      options: TemplateOptions(pageSetup: setup, printHead: model.printHead)
    ).document
    document.pageSetup.monochrome = true
    let laidOut = try engine.layout(document)
    let expected = try RasterRenderer().render(laidOut).map { page in
      let columns = RasterRenderer.printableColumns(pageWidth: page.width, setup: laidOut.pageSetup)
      return page.cropped(x: columns.lowerBound, width: columns.count)
    }
    return (document, expected)
  }

  /// Whether a printed page is the expected image, dot for dot.
  static func same(_ page: SimulatedPage, _ image: RasterImage) -> Bool {
    guard page.width == image.width, page.rows.count == image.height else { return false }
    for y in 0..<image.height where page.rows[y] != (0..<image.width).map({ image.isBlack(x: $0, y: y) }) {
      return false
    }
    return true
  }

  static func waitFor(_ seconds: Double, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
      if Date() > deadline { return false }
      Thread.sleep(forTimeInterval: 0.02)
    }
    return true
  }

  /// The printer each shipped model stands for, from the vendors' references (the simulator's
  /// own table, not our model files): the TM-T88 line starts in 1/360-inch vertical units; the
  /// others' defaults are not documented, so their simulators refuse a feed before `GS P`.
  static func simulated(_ name: String, dots: Int) -> SimulatedPrinterModel {
    switch name {
    case "epson-tm-t88v", "epson-tm-t88vi":
      var m = SimulatedPrinterModel.epsonTMT88
      m.headDots = dots
      return m
    case "bixolon-srp-350iii":
      return SimulatedPrinterModel(
        headDots: dots, dpi: 180, defaultVerticalUnits: nil, source: "no GS P default found for the SRP-350III")
    case "epson-tm-t20iii", "epson-tm-m30iii":
      var m = SimulatedPrinterModel.epson203
      m.headDots = dots
      return m
    default:
      return .generic203(headDots: dots)
    }
  }

  @Test(arguments: PrinterModel.shipped.flatMap { m in m.paper.keys.sorted().map { (m.name, $0) } })
  func everyModelPrintsThePreviewDotForDot(name: String, paper: String) throws {
    let model = try PrinterModel.named(name)
    let dots = try #require(model.paper[paper])
    let simulator = try ThermalPrinterSimulator(model: Self.simulated(name, dots: dots))
    let (document, expected) = try Self.shop(model, paper: paper)
    _ = try ReceiptEngine().print(
      document, request: PrintRequest(printer: "socket://127.0.0.1:\(simulator.port)", model: model))
    #expect(Self.waitFor(20) { simulator.pages.first?.cut != nil }, "the receipt was cut")
    let page = try #require(simulator.pages.first)
    #expect(page.width == dots && expected[0].width == dots, "\(name) \(paper): the model's printable dots")
    #expect(
      Self.same(page, expected[0]), "\(name) \(paper): \(page.rows.count) rows printed, \(expected[0].height) previewed"
    )
    #expect(page.cut == "partial")
    #expect(simulator.refusedCommands.isEmpty, "\(simulator.refusedCommands)")
    // A job is recorded when its connection ends, which may be a moment after the cut.
    #expect(Self.waitFor(20) { !simulator.jobs.isEmpty }, "the connection ended")
    let bytes = try #require(simulator.jobs.first)
    let star = Data([0x1B, 0x40, 0x1B, 0x2A, 0x72, 0x41])  // ESC @, ESC * r A
    #expect((bytes.prefix(6) == star) == (model.commandSet == "star"), "\(name) speaks its own command set")
  }

  /// Blank gaps (a 30 mm spacer, a 20 mm feed, the small example's own gaps) come out as long
  /// as the preview, ±1 dot row: on each printer at its vendor's documented default units (the
  /// TM-T88's 1/360 inch), and on printers whose vertical unit was left at 1/360 inch, 1/406 or
  /// 1/203 inch (a printer set up differently): the encoder's `GS P` makes them agree.
  @Test(arguments: [
    ("epson-tm-t88v", 360), ("epson-tm-t88vi", 360), ("epson-tm-t88vi", 180), ("epson-tm-t20iii", 360),
    ("epson-tm-t20iii", 406), ("epson-tm-m30iii", 203), ("generic-80mm", 203), ("generic-58mm", 360),
    ("bixolon-srp-350iii", 360),
  ])
  func blankGapsAreAsLongAsThePreview(name: String, startingUnits: Int) throws {
    let model = try PrinterModel.named(name)
    let paper = model.paper["80mm"] != nil ? "80mm" : "58mm"
    let dots = try #require(model.paper[paper])
    let directory = try Tool.temporaryDirectory()
    try """
    <receipt paper="\(paper)"><text>Top</text><spacer height="30mm"/><text>Middle</text>
    <feed length="20mm"/><text>Bottom</text></receipt>
    """.write(to: directory.appendingPathComponent("gaps.xml"), atomically: true, encoding: .utf8)
    let roll = try #require(Paper(parsing: paper))
    let setup = try #require(model.printHead.fitting(PageSetup(paper: roll)))
    let engine = try ReceiptEngine()
    var gaps = try engine.templateDocument(
      template: "gaps", data: Data("{}".utf8), templates: directory,
      options: TemplateOptions(pageSetup: setup, printHead: model.printHead)
    ).document
    gaps.pageSetup.monochrome = true
    let (small, smallExpected) = try Self.shop(model, paper: paper)
    for (document, expectedPages) in [(gaps, try Self.preview(gaps)), (small, smallExpected)] {
      let simulator = try ThermalPrinterSimulator(
        model: Self.simulated(name, dots: dots).withDefaultVerticalUnits(startingUnits))
      _ = try engine.print(
        document, request: PrintRequest(printer: "socket://127.0.0.1:\(simulator.port)", model: model))
      #expect(Self.waitFor(20) { simulator.pages.first?.cut != nil }, "the receipt was cut")
      let page = try #require(simulator.pages.first)
      let expected = expectedPages[0]
      #expect(
        abs(page.rows.count - expected.height) <= 1, "\(name): \(page.rows.count) rows, preview \(expected.height)")
      #expect(Self.same(page, expected), "\(name): the paper is the preview dot for dot")
      #expect(simulator.refusedCommands.isEmpty, "\(simulator.refusedCommands)")
    }
    // The 30 mm spacer alone: its rows are blank and travel as feeds; on 1/360-inch units
    // without GS P they would have printed at half (or, at 1/406, less than half) their length.
    let thirty = Int((30 / 25.4 * Double(model.dpi)).rounded())
    #expect(try Self.preview(gaps)[0].height > thirty)
  }

  /// The preview of a document, cropped to the printable columns.
  static func preview(_ document: ReceiptDocument) throws -> [RasterImage] {
    let laidOut = try ReceiptEngine().layout(document)
    return try RasterRenderer().render(laidOut).map { page in
      let columns = RasterRenderer.printableColumns(pageWidth: page.width, setup: laidOut.pageSetup)
      return page.cropped(x: columns.lowerBound, width: columns.count)
    }
  }

  /// Without `GS P`, the simulator at the TM-T88's documented default moves half a row per
  /// `ESC J` unit, and a generic printer whose default is unknown refuses the feed: the
  /// simulator checks the units, it does not take the encoder's word for them.
  @Test func theSimulatorFeedsInItsOwnUnits() throws {
    let tm = try ThermalPrinterSimulator(model: .epsonTMT88)
    let generic = try ThermalPrinterSimulator(model: .generic203())
    // ESC @, ESC J 200, a one-row band (so the page has an end), GS V 66 0.
    let stream: [UInt8] = [0x1B, 0x40, 0x1B, 0x4A, 200, 0x1D, 0x76, 0x30, 0, 1, 0, 1, 0, 0xFF, 0x1D, 0x56, 66, 0]
    for simulator in [tm, generic] { try Self.send(stream, to: simulator.port) }
    #expect(Self.waitFor(20) { tm.pages.first?.cut != nil })
    #expect(tm.pages.first?.rows.count == 100 + 1, "200 units of 1/360 inch are 100 rows of a 180-dpi head")
    #expect(Self.waitFor(20) { !generic.refusedCommands.isEmpty })
    #expect(generic.refusedCommands.first?.hasPrefix("ESC J 200 before GS P") == true)
    // Unknown commands and a double-size raster mode are refused too.
    let odd = try ThermalPrinterSimulator(model: .epsonTMT88)
    try Self.send([0x1B, 0x40, 0x1D, 0x76, 0x30, 3, 1, 0, 1, 0, 0xFF], to: odd.port)
    #expect(Self.waitFor(20) { odd.refusedCommands.first?.hasPrefix("GS v 48 m = 3") == true })
    let text = try ThermalPrinterSimulator(model: .epsonTMT88)
    try Self.send(Array("Hello\n".utf8), to: text.port)
    #expect(Self.waitFor(20) { text.refusedCommands.first?.hasPrefix("byte 0x48 (stream byte ") == true })
  }

  /// Sends bytes to a simulator on loopback and closes the connection.
  static func send(_ bytes: [UInt8], to port: UInt16) throws {
    let fd = try Loopback.connect(port: port)
    defer { close(fd) }
    var bytes = bytes
    _ = write(fd, &bytes, bytes.count)
  }

  @Test func aConfirmingPrinterIsDoneOnlyWhenItSaysTheReceiptPrinted() throws {
    let model = try PrinterModel.named("epson-tm-t88v")
    #expect(model.confirmsPrints && model.sendsAutomaticStatus)
    let (document, expected) = try Self.shop(model)
    for confirm in [false, true] {
      let simulator = try ThermalPrinterSimulator(model: .epsonTMT88)
      simulator.printSlowly(rowsPerSecond: Double(expected[0].height) / 3)  // 3 s a receipt
      let request = PrintRequest(
        printer: "socket://127.0.0.1:\(simulator.port)", model: model, processID: confirm ? "A7#z" : nil)
      _ = try ReceiptEngine().print(document, request: request)
      if confirm {
        // Returned after the printer answered: everything had printed.
        #expect(simulator.confirmedProcessIDs == ["A7#z"])
        #expect(simulator.pages.first?.cut == "partial" && simulator.pendingCommands == 0)
      } else {
        #expect(simulator.pages.first?.cut == nil, "without confirmation, done means only sent")
        #expect(Self.waitFor(20) { simulator.pages.first?.cut != nil })
      }
      #expect(Self.same(try #require(simulator.pages.first), expected[0]))
    }
  }

  @Test func paperOutMidReceiptIsAnInterruptionAndTheRestIsCleared() throws {
    let model = try PrinterModel.named("epson-tm-t88v")
    let (document, expected) = try Self.shop(model)
    let simulator = try ThermalPrinterSimulator(model: .epsonTMT88)
    simulator.runOutOfPaper(afterRows: expected[0].height / 3)
    let request = PrintRequest(printer: "socket://127.0.0.1:\(simulator.port)", model: model, processID: "0001")
    let error = #expect(throws: ReceiptError.self) { try ReceiptEngine().print(document, request: request) }
    #expect(error?.message.contains("out of paper") == true, "\(String(describing: error))")
    #expect(error?.message.contains("what had not printed was cleared") == true, "\(String(describing: error))")
    #expect(simulator.bufferClears == 1 && simulator.pendingCommands == 0, "the rest was cleared")
    #expect(simulator.confirmedProcessIDs.isEmpty)
    let partial = try #require(simulator.pages.first)
    #expect(partial.cut == "paper-out" && partial.rows.count < expected[0].height)
    // New paper: nothing of the interrupted receipt comes out on it — the next receipt, printed
    // and confirmed, is the very next page (the printer worked through all it had before it).
    simulator.set(paperEnd: false)
    let next = PrintRequest(printer: "socket://127.0.0.1:\(simulator.port)", model: model, processID: "0003")
    try ReceiptEngine().print(document, request: next)
    #expect(simulator.confirmedProcessIDs == ["0003"])
    #expect(simulator.pages.count == 2 && simulator.pages[0].rows.count == partial.rows.count)
    #expect(Self.same(simulator.pages[1], expected[0]), "the next receipt, whole")
  }

  @Test func aConnectionLostBeforeTheConfirmationIsNotAPrint() throws {
    let model = try PrinterModel.named("epson-tm-t20iii")
    let (document, _) = try Self.shop(model)
    let simulator = try ThermalPrinterSimulator(model: .generic203())
    simulator.disconnect(afterBytes: 2000)
    let request = PrintRequest(printer: "socket://127.0.0.1:\(simulator.port)", model: model, processID: "0002")
    let error = #expect(throws: ReceiptError.self) { try ReceiptEngine().print(document, request: request) }
    #expect(error?.message.contains("closed the connection") == true, "\(String(describing: error))")
    #expect(simulator.confirmedProcessIDs.isEmpty)
  }

  @Test(arguments: [9600, 115_200])
  func aSerialPrinterPrintsAtItsBaudRate(baud: Int) throws {
    let model = try PrinterModel.named("epson-tm-t88v")
    let simulator = try ThermalPrinterSimulator(serialBaud: baud, model: .epsonTMT88)
    let path = try #require(simulator.devicePath)
    let engine = try ReceiptEngine()
    // At 9,600 baud a short note (under 1 KB: about a second); at 115,200 the shop example.
    let document: ReceiptDocument
    let expected: [RasterImage]
    if baud == 9600 {
      var note = try engine.templateDocument(
        source: Data("<receipt><text>Table 4: two coffees</text></receipt>".utf8), named: "note",
        data: Data("{}".utf8), templates: Self.templates,
        options: TemplateOptions(
          pageSetup: model.printHead.fitting(PageSetup(paper: .mm80)), printHead: model.printHead)
      ).document
      note.pageSetup.monochrome = true
      let laidOut = try engine.layout(note)
      expected = try RasterRenderer().render(laidOut).map {
        let columns = RasterRenderer.printableColumns(pageWidth: $0.width, setup: laidOut.pageSetup)
        return $0.cropped(x: columns.lowerBound, width: columns.count)
      }
      document = note
    } else {
      (document, expected) = try Self.shop(model)
    }
    let started = Date()
    _ = try engine.print(
      document,
      request: PrintRequest(printer: "serial:\(path)?baud=\(baud)", model: model, processID: "S\(baud % 1000)"))
    let seconds = Date().timeIntervalSince(started)
    let bytes = simulator.bytesReceived
    #expect(bytes > 500)
    #expect(seconds >= Double(bytes * 10) / Double(baud) * 0.8, "\(bytes) bytes in \(seconds) s")
    #expect(simulator.confirmedProcessIDs.count == 1, "confirmed over the same line")
    #expect(Self.same(try #require(simulator.pages.first), expected[0]))
  }

  @Test func aUSBPrinterDeviceConfirmsToo() throws {
    // A pty's path stands in for /dev/usb/lp0: a character device read and written as is.
    let model = try PrinterModel.named("epson-tm-m30iii")
    let simulator = try ThermalPrinterSimulator(serialBaud: 1_000_000, model: .generic203())
    let (document, expected) = try Self.shop(model)
    _ = try ReceiptEngine().print(
      document,
      request: PrintRequest(printer: "usb:\(try #require(simulator.devicePath))", model: model, processID: "U001"))
    #expect(simulator.confirmedProcessIDs == ["U001"])
    #expect(Self.same(try #require(simulator.pages.first), expected[0]))
  }
}
