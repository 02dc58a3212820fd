import Foundation
import ReceiptKit
import ReceiptLayout
import ReceiptPrint
import ReceiptRender
import ReceiptTestSupport
import Testing

/// Every model's byte stream for many generated orders is read back strictly by the printer
/// simulator's receive side (written from the vendors' references, not from the encoder): a
/// printer that misreads one byte prints garbage for the rest of the receipt. The stream sent
/// band by band as it is drawn (`receipt print` to a socket) is the same bytes as the stream
/// encoded whole (the daemon, `receipt render --format escpos`), for any band height.
///
/// `RECEIPT_STREAM_ORDERS` sets how many orders a model gets here (default 2: this runs in the
/// debug build); `StreamStrictnessTests` reads hundreds per model from the shipped binary.
@Suite struct ESCPOSStreamTests {
  static let templates = PrinterModelTests.templates
  static let count = ProcessInfo.processInfo.environment["RECEIPT_STREAM_ORDERS"].flatMap(Int.init) ?? 2

  @Test(arguments: PrinterModel.shipped.flatMap { m in m.paper.keys.sorted().map { (m.name, $0) } })
  func everyStreamIsReadStrictlyAndStreamsAsItEncodes(name: String, paper: String) throws {
    let model = try PrinterModel.named(name)
    let engine = try ReceiptEngine()
    let roll = try #require(Paper(parsing: paper))
    let setup = try #require(model.printHead.fitting(PageSetup(paper: roll)))
    var random = SeededGenerator(defaultSeed: 0x5EED_0004 &+ UInt64(name.utf8.count))
    for n in 0..<Self.count {
      let (data, locale) = try GeneratedOrders.order(n, &random)
      var document = try engine.templateDocument(
        template: "receipt", data: data, templates: Self.templates,
        options: TemplateOptions(locale: locale, pageSetup: setup, printHead: model.printHead)
      ).document
      document.pageSetup.monochrome = true
      let laidOut = try engine.layout(document)
      let whole = try PrintPath.escpos.encode(laidOut, model: model)
      let read = SimulatedCommandParser.strictlyRead(whole)
      #expect(read.refused.isEmpty, "\(name) \(paper) order \(n), \(random.seedNote): \(read.refused.prefix(3))")
      #expect(read.leftover == 0, "\(name) order \(n): \(read.leftover) bytes cut short")
      guard PrintPath.streams(model: model) else { continue }
      for rows in [1, 7, 64, 256, 1000] {
        var streamed = Data()
        try PrintPath.streamESCPOS(laidOut, model: model, rows: rows) { streamed += $0 }
        #expect(streamed == whole, "\(name) order \(n) in bands of \(rows) rows, \(random.seedNote)")
      }
    }
  }
}
