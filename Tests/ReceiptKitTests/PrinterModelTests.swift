import Foundation
import ReceiptKit
import ReceiptLayout
import ReceiptPrint
import ReceiptRender
import ReceiptTestSupport
import Testing

/// Printer models as data: each shipped model cites its sources, lays receipts out for its own
/// head (preview = print, dot for dot), and ESC/POS sends blank rows as feeds.
@Suite struct PrinterModelTests {
  static let templates = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../Templates").standardizedFileURL

  /// The shop example on `paper` for a model: its layout, its PNG preview's 1-bit pages, its ESC/POS bytes.
  static func shop(model: PrinterModel?, paper: String = "80mm", feeds: Bool = true) throws -> (
    laidOut: LaidOutReceipt, preview: [RasterImage], escpos: Data
  ) {
    let engine = try ReceiptEngine()
    let data = try Data(contentsOf: templates.appendingPathComponent("Examples/small.json"))
    var setup = PageSetup(paper: Paper(parsing: paper)!)
    if let head = model?.printHead {
      guard let fitted = head.fitting(setup) else { throw PrintError.badModel("\(paper) is not a paper of the model") }
      setup = fitted
    }
    let document = try engine.templateDocument(
      template: "receipt", data: data, templates: templates,
      options: TemplateOptions(pageSetup: setup, printHead: model?.printHead)
    ).document
    let laidOut = try engine.layout(document)
    let preview = try RasterRenderer().render(laidOut)
    let escpos = ESCPOSEncoder(bandHeight: model?.bandHeight ?? 256, feedsBlankRows: feeds).encode(
      preview, receipt: laidOut)
    return (laidOut, preview, escpos)
  }

  /// A shipped model with other drawer pins.
  static func model(_ name: String, drawerPins: [Int]) throws -> PrinterModel {
    var json =
      try JSONSerialization.jsonObject(with: JSONEncoder().encode(try PrinterModel.named(name))) as! [String: Any]
    json["drawerPins"] = drawerPins
    return try JSONDecoder().decode(PrinterModel.self, from: JSONSerialization.data(withJSONObject: json))
  }

  /// The drawer kicks the printer gets for a receipt with `drawers` (`<drawer/>` elements).
  static func kicks(_ drawers: String, model: PrinterModel?) throws -> [DrawerPin] {
    let engine = try ReceiptEngine()
    let source = "<receipt><text>Paid cash</text>\(drawers)</receipt>"
    let document = try engine.templateDocument(
      source: Data(source.utf8), named: "drawer", data: Data("{}".utf8), templates: templates,
      options: TemplateOptions(printHead: model?.printHead)
    ).document
    let escpos = try PrintPath.escpos.encode(try engine.layout(document), model: model)
    let dots = model?.paper["80mm"] ?? 576
    return try ESCPOSDecoder.decode(escpos, bytesPerLine: (dots + 7) / 8, dpi: model?.dpi ?? 203).drawerKicks.map(\.pin)
  }

  @Test func theDrawerIsKickedOnTheModelsPin() throws {
    #expect(try Self.kicks("<drawer/>", model: nil) == [.pin2], "without a model: pin 2")
    #expect(try Self.kicks("<drawer/>", model: Self.model("generic-80mm", drawerPins: [5, 2])) == [.pin5])
    #expect(try Self.kicks("<drawer pin=\"2\"/>", model: Self.model("generic-80mm", drawerPins: [5, 2])) == [.pin2])
    #expect(try Self.kicks("<drawer pin=\"5\"/>", model: nil) == [.pin5])
    #expect(throws: PrintError.self, "a pin the model does not have") {
      try Self.kicks("<drawer pin=\"5\"/>", model: Self.model("generic-80mm", drawerPins: [2]))
    }
    #expect(throws: PrintError.self, "a model without a drawer connector") {
      try Self.kicks("<drawer/>", model: Self.model("generic-80mm", drawerPins: []))
    }
  }

  @Test func aRawPrinterGetsTheKickOnItsModelsPin() throws {
    // A socket printer (a loopback listener standing in for port 9100) with a model whose drawer
    // is on pin 5: the model travels with the job to the encoder.
    let listener = try SocketListener()
    let model = try Self.model("generic-80mm", drawerPins: [5])
    let engine = try ReceiptEngine()
    let document = try engine.templateDocument(
      source: Data("<receipt><text>Paid cash</text><drawer/></receipt>".utf8), named: "drawer", data: Data("{}".utf8),
      templates: Self.templates, options: TemplateOptions(printHead: model.printHead)
    ).document
    _ = try engine.print(document, request: PrintRequest(printer: "socket://127.0.0.1:\(listener.port)", model: model))
    let bytes = try #require(listener.connection(0))
    let decoded = try ESCPOSDecoder.decode(bytes, bytesPerLine: (model.paper["80mm"]! + 7) / 8)
    #expect(decoded.drawerKicks.map(\.pin) == [.pin5])
  }

  @Test func shippedModelsAreCompleteAndCiteTheirSources() throws {
    #expect(PrinterModel.shipped.count >= 3)
    #expect(Set(PrinterModel.shipped.map(\.name)).count == PrinterModel.shipped.count)
    for model in PrinterModel.shipped {
      #expect(!model.sources.isEmpty, "\(model.name)")
      #expect(!model.paper.isEmpty && model.paper.values.allSatisfy { $0 % 8 == 0 }, "\(model.name)")
      #expect(try PrinterModel.named(model.name) == model)
    }
    let t88v = try PrinterModel.named("epson-tm-t88v")
    #expect(t88v.dpi == 180 && t88v.paper["80mm"] == 512 && t88v.paper["58mm"] == 360)
    #expect(throws: PrintError.self) { try PrinterModel.named("tm-nope") }
  }

  @Test(arguments: PrinterModel.shipped.flatMap { m in m.paper.keys.sorted().map { (m.name, $0) } })
  func whatThePrinterPrintsIsThePreviewDotForDot(name: String, paper: String) throws {
    let model = try PrinterModel.named(name)
    let shop = try Self.shop(model: model, paper: paper)
    #expect(shop.laidOut.pageSetup.resolution.dpi == model.dpi)
    let printed = try ESCPOSDecoder.decode(shop.escpos, bytesPerLine: (model.paper[paper]! + 7) / 8, dpi: model.dpi)
    #expect(printed.pages.count == shop.preview.count)
    for (page, preview) in zip(printed.pages, shop.preview) {
      let columns = RasterRenderer.printableColumns(pageWidth: preview.width, setup: shop.laidOut.pageSetup)
      #expect(columns.count == model.paper[paper], "\(name) \(paper): \(columns.count) printable dots")
      // The printer gets whole bytes per row.
      #expect(page.width == (model.paper[paper]! + 7) / 8 * 8)
      let expected = preview.cropped(x: columns.lowerBound, width: columns.count)
      #expect(page.height == expected.height && page.data == expected.data, "\(name) on \(paper): dots differ")
    }
  }

  @Test func aModelWithoutThePaperIsAClearError() throws {
    let engine = try ReceiptEngine()
    #expect {
      try engine.templateDocument(
        template: "receipt", data: Data(#"{"items": []}"#.utf8), templates: Self.templates,
        options: TemplateOptions(printHead: try PrinterModel.named("generic-58mm").printHead))
    } throws: { "\($0)".contains("takes 58mm paper, not 80mm") }
  }

  /// Blank rows as `ESC J` feeds: the same paper, far fewer bytes (the README's table).
  @Test func blankRowsAreFeedsAndTheShopExampleIsAtLeast40PercentSmaller() throws {
    let before = try Self.shop(model: nil, feeds: false)
    let after = try Self.shop(model: nil, feeds: true)
    #expect(
      try ESCPOSDecoder.decode(after.escpos, bytesPerLine: 72) == ESCPOSDecoder.decode(before.escpos, bytesPerLine: 72))
    let saving = 1 - Double(after.escpos.count) / Double(before.escpos.count)
    print("shop example, 80 mm: \(before.escpos.count) → \(after.escpos.count) bytes (\(Int(saving * 100)) % less)")
    #expect(saving >= 0.4, "\(before.escpos.count) → \(after.escpos.count) bytes")
  }
}
