import Foundation
import ReceiptLayout
import ReceiptPrint
import ReceiptRender
import ReceiptTestSupport
import Testing

@testable import ReceiptKit

/// A raw socket printer is sent each band of a receipt as soon as it is drawn and encoded
/// (``PrintPath/streamESCPOS(_:model:rows:caches:send:)``). What it gets must be exactly the receipt
/// encoded whole: the bands stacked are the page, and the encoder fed bands gives the bytes it
/// gives for whole pages.
@Suite struct StreamedPrintTests {
  static let templates = PrinterModelTests.templates
  static let examples = ["small", "large", "japanese", "arabic", "restaurant", "discounts"]

  /// An example receipt laid out for a print head (203 dpi by default), or a document.
  static func receipt(_ example: String, locale: String? = nil, head: PrintHead? = nil) throws -> LaidOutReceipt {
    let engine = try ReceiptEngine()
    let data = try Data(contentsOf: templates.appendingPathComponent("Examples/\(example).json"))
    let document = try engine.templateDocument(
      template: "receipt", data: data, templates: templates, options: TemplateOptions(locale: locale, printHead: head)
    ).document
    return try engine.layout(document)
  }

  /// Text that stresses the bands' item bounds: marks stacked high on one letter, a color emoji
  /// (dithered), a logo, a barcode and inverse text, with bands cutting through each.
  static func stress(paper: String? = nil) throws -> LaidOutReceipt {
    let engine = try ReceiptEngine()
    let source = """
      <receipt\(paper.map { " paper=\"\($0)\"" } ?? "")><image src="logo.png" width="40mm"/>
      <text size="14">Z\u{0301}\u{0302}\u{0303}\u{0304}\u{0306}\u{0307}\u{0308}\u{030A}\u{030B}\u{030C}alg\u{0316}\u{0317}\u{0318}\u{0319}o ☕ 🍰 done</text>
      <text inverse="true" size="20">TOTAL 12,40 €</text><barcode type="qr" data="https://example.com/r/1"/></receipt>
      """
    let document = try engine.templateDocument(
      source: Data(source.utf8), named: "stress", data: Data("{}".utf8), templates: templates
    ).document
    return try engine.layout(document)
  }

  @Test(arguments: [1, 61, 256])
  func bandsStackToTheWholePage(rows: Int) throws {
    var receipts = [try Self.stress(), try Self.receipt("small"), try Self.receipt("arabic", locale: "ar_SA")]
    if rows > 1 {
      receipts += try Self.examples.map { try Self.receipt($0) }
      receipts.append(try Self.receipt("small", head: try PrinterModel.named("epson-tm-t88v").printHead))
    }
    for receipt in receipts {
      do {
        let renderer = RasterRenderer()
        let whole = try renderer.render(receipt)
        for index in receipt.pages.indices {
          var stacked = Data()
          var tops: [Int] = []
          try renderer.render(receipt, page: index, bands: rows) { top, band in
            tops.append(top)
            #expect(band.width == whole[index].width && band.bitsPerPixel == whole[index].bitsPerPixel)
            stacked.append(contentsOf: band.data)
          }
          #expect(tops.first == 0 && tops.count == (whole[index].height + rows - 1) / rows)
          let differs = zip(whole[index].data, stacked).enumerated().first { $0.element.0 != $0.element.1 }?.offset
          #expect(
            differs == nil,
            "\(receipt.title) page \(index), \(rows) rows: first differing row \((differs ?? 0) / whole[index].bytesPerLine), column \((differs ?? 0) % whole[index].bytesPerLine), \(zip(whole[index].data, stacked).filter { $0.0 != $0.1 }.count) bytes differ, e.g. \(zip(whole[index].data, stacked).filter { $0.0 != $0.1 }.prefix(8))"
          )
        }
      }
    }
  }

  /// A raw printer's images hold the printable columns only (taken while packing, not cropped
  /// from a full-width image): they must be the full-width page cropped, dithered logo and
  /// colour emoji included, whole and in bands, on 80 and 58 mm.
  @Test func printableImagesAreTheWholePageCropped() throws {
    let receipts = [try Self.stress(), try Self.receipt("small"), try Self.stress(paper: "58mm")]
    for receipt in receipts {
      let whole = try RasterRenderer().render(receipt)
      let printable = RasterRenderer(printableOnly: true)
      let images = try printable.render(receipt)
      for index in receipt.pages.indices {
        let columns = RasterRenderer.printableColumns(pageWidth: whole[index].width, setup: receipt.pageSetup)
        #expect(columns.lowerBound > 0, "the printable columns are a strip of the page")
        let cropped = whole[index].cropped(x: columns.lowerBound, width: columns.count)
        #expect(images[index] == cropped, "\(receipt.title) page \(index)")
        var stacked: [UInt8] = []
        try printable.render(receipt, page: index, bands: 61) { _, band in
          #expect(band.width == columns.count)
          stacked += band.data
        }
        #expect(stacked == cropped.data, "\(receipt.title) page \(index) in bands")
      }
    }
  }

  @Test func theStreamIsTheEncodedReceiptForEveryModel() throws {
    let receipts = [try Self.stress()] + (try Self.examples.map { try Self.receipt($0) })
    for model in PrinterModel.shipped where PrintPath.streams(model: model) {
      for receipt in receipts {
        for rows in [97, 256] {
          var sends: [Data] = []
          try PrintPath.streamESCPOS(receipt, model: model, rows: rows) { sends.append($0) }
          let whole = try PrintPath.escpos.encode(receipt, model: model)
          #expect(sends.reduce(Data(), +) == whole, "\(model.name), \(receipt.title), \(rows) rows")
          // Sent as drawn: a first piece (initialisation) before any band, then piece by piece.
          let bands = receipt.pages.indices.map {
            (RasterRenderer.size(of: receipt.pages[$0], setup: receipt.pageSetup).height + rows - 1) / rows
          }.reduce(0, +)
          #expect(sends.count > bands / 2, "\(model.name): \(sends.count) pieces for \(bands) bands")
        }
      }
    }
  }

  @Test func aSocketPrinterIsSentTheReceiptAsItIsDrawn() throws {
    let listener = try SocketListener()
    let engine = try ReceiptEngine()
    let model = try PrinterModel.named("epson-tm-t20iii")
    let data = try Data(contentsOf: Self.templates.appendingPathComponent("Examples/large.json"))
    let document = try engine.templateDocument(
      template: "receipt", data: data, templates: Self.templates, options: TemplateOptions(printHead: model.printHead)
    ).document
    let request = PrintRequest(printer: "socket://127.0.0.1:\(listener.port)", model: model)
    let printer = try engine.openPrinter(request.printer)
    #expect(printer.streams(engine.job(request, name: "x")))
    _ = try engine.print(document, request: request)
    let sent = try #require(listener.connection(0))
    #expect(sent == (try PrintPath.escpos.encode(try engine.layout(document), model: model)))
    // Two copies, a Star model, or a confirmed print go whole.
    #expect(!printer.streams(engine.job(PrintRequest(copies: 2, model: model), name: "x")))
    let star = try PrinterModel.named("star-tsp143iv")
    #expect(!printer.streams(engine.job(PrintRequest(model: star), name: "x")))
    #expect(model.confirmsPrints)
    #expect(!printer.streams(engine.job(PrintRequest(wait: true, model: model), name: "x")))
  }
}
