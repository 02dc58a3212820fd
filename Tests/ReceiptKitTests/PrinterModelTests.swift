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
    let printed = try ESCPOSDecoder.decode(shop.escpos, bytesPerLine: (model.paper[paper]! + 7) / 8)
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
