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

  @Test(arguments: PrinterModel.shipped.flatMap { m in m.paper.keys.sorted().map { (m.name, $0) } })
  func everyModelPrintsThePreviewDotForDot(name: String, paper: String) throws {
    let model = try PrinterModel.named(name)
    let dots = try #require(model.paper[paper])
    let simulator = try ThermalPrinterSimulator(headDots: dots)
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
    let bytes = try #require(simulator.jobs.first)
    let star = Data([0x1B, 0x40, 0x1B, 0x2A, 0x72, 0x41])  // ESC @, ESC * r A
    #expect((bytes.prefix(6) == star) == (model.commandSet == "star"), "\(name) speaks its own command set")
  }

  @Test func aConfirmingPrinterIsDoneOnlyWhenItSaysTheReceiptPrinted() throws {
    let model = try PrinterModel.named("epson-tm-t88v")
    #expect(model.confirmsPrints && model.sendsAutomaticStatus)
    let (document, expected) = try Self.shop(model)
    for confirm in [false, true] {
      let simulator = try ThermalPrinterSimulator(headDots: 512)
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
    let simulator = try ThermalPrinterSimulator(headDots: 512)
    simulator.runOutOfPaper(afterRows: expected[0].height / 3)
    let request = PrintRequest(printer: "socket://127.0.0.1:\(simulator.port)", model: model, processID: "0001")
    let error = #expect(throws: ReceiptError.self) { try ReceiptEngine().print(document, request: request) }
    #expect(error?.message.contains("out of paper") == true, "\(String(describing: error))")
    #expect(error?.message.contains("reprint") == true)
    #expect(simulator.bufferClears == 1 && simulator.pendingCommands == 0, "the rest was cleared")
    #expect(simulator.confirmedProcessIDs.isEmpty)
    let partial = try #require(simulator.pages.first)
    #expect(partial.cut == "paper-out" && partial.rows.count < expected[0].height)
    // New paper: nothing of the interrupted receipt comes out on it.
    simulator.set(paperEnd: false)
    Thread.sleep(forTimeInterval: 0.5)
    #expect(simulator.pages.count == 1 && simulator.pages[0].rows.count == partial.rows.count)
  }

  @Test func aConnectionLostBeforeTheConfirmationIsNotAPrint() throws {
    let model = try PrinterModel.named("epson-tm-t20iii")
    let (document, _) = try Self.shop(model)
    let simulator = try ThermalPrinterSimulator(headDots: 576)
    simulator.disconnect(afterBytes: 2000)
    let request = PrintRequest(printer: "socket://127.0.0.1:\(simulator.port)", model: model, processID: "0002")
    let error = #expect(throws: ReceiptError.self) { try ReceiptEngine().print(document, request: request) }
    #expect(error?.message.contains("closed the connection") == true, "\(String(describing: error))")
    #expect(simulator.confirmedProcessIDs.isEmpty)
  }

  @Test(arguments: [9600, 115_200])
  func aSerialPrinterPrintsAtItsBaudRate(baud: Int) throws {
    let model = try PrinterModel.named("epson-tm-t88v")
    let simulator = try ThermalPrinterSimulator(serialBaud: baud, headDots: 512)
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
    let simulator = try ThermalPrinterSimulator(serialBaud: 1_000_000, headDots: 576)
    let (document, expected) = try Self.shop(model)
    _ = try ReceiptEngine().print(
      document,
      request: PrintRequest(printer: "usb:\(try #require(simulator.devicePath))", model: model, processID: "U001"))
    #expect(simulator.confirmedProcessIDs == ["U001"])
    #expect(Self.same(try #require(simulator.pages.first), expected[0]))
  }
}
