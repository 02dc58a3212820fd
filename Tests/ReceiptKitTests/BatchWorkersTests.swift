import Foundation
@_spi(Internals) import ReceiptModel
import ReceiptTestSupport
import Testing

@testable import ReceiptKit
@testable import ReceiptLayout
@testable import ReceiptMarkup
@testable import ReceiptRender

/// ``BatchRender``'s workers share the process's context (``EngineCaches/process``: parsed
/// templates, style sheets and bindings, formatted numbers, decoded logos, kept glyph runs and
/// image dots) and the process's resources (hyphenation dictionaries, cairo's faces) while each
/// lays out with an engine of its own. Run in process so `make sanitize` sees every worker under
/// ThreadSanitizer: four workers rendering every example in every shipped locale, the caches
/// warm and shared, must write exactly what a fresh engine writes with a context of its own.
@Suite struct BatchWorkersTests {
  static let templates = PrinterModelTests.templates
  static let examples = ["small", "large", "japanese", "arabic", "restaurant", "discounts"]
  static let locales = ["en_US", "de_DE", "fr_FR", "ja_JP", "ar_SA"]

  /// Each example in each locale, twice (the second pass finds every cache filled).
  static func orders() throws -> [(name: String, data: Data)] {
    var orders: [(String, Data)] = []
    for pass in 0..<2 {
      for example in examples {
        let data = try Data(contentsOf: templates.appendingPathComponent("Examples/\(example).json"))
        guard case var order as [String: Any] = try JSONSerialization.jsonObject(with: data) else {
          Issue.record("\(example).json is not an object")
          continue
        }
        for locale in locales {
          order["locale"] = locale
          order["number"] = "\(example)-\(locale)-\(pass)"
          orders.append(("\(example)-\(locale)-\(pass)", try JSONSerialization.data(withJSONObject: order)))
        }
      }
    }
    return orders
  }

  static func render(_ engine: ReceiptEngine, _ data: Data, _ format: OutputFormat) throws -> RenderedReceipt {
    let bound = try engine.templateDocument(template: "receipt", data: data, templates: templates)
    return try engine.render(bound.document, format: format)
  }

  /// The order rendered from nothing: a new engine with a new, empty context.
  static func fresh(_ data: Data, _ format: OutputFormat) throws -> [Data] {
    return try render(try ReceiptEngine(caches: EngineCaches()), data, format).parts
  }

  @Test(arguments: [OutputFormat.escpos, .png])
  func fourWorkersWriteWhatAFreshEngineWrites(format: OutputFormat) throws {
    let orders = try Self.orders()
    let expected = try orders.map { try Self.fresh($0.data, format) }
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("batch-workers-\(UUID())")
    defer { try? FileManager.default.removeItem(at: directory) }
    let queue = Locked(orders[...])
    let outcomes = Locked<[BatchOutcome]>([])
    let batch = BatchRender(directory: directory, format: format, workers: 4) { engine, _, data in
      try Self.render(engine, data, format)
    }
    let failed = try batch.run(
      next: {
        queue.withLock { queue in
          queue.popFirst().map { order in BatchItem(label: order.name, name: order.name, isOrder: true) { order.data } }
        }
      },
      done: { outcome in outcomes.withLock { $0.append(outcome) } })
    #expect(failed == 0)
    #expect(outcomes.withLock { $0.count } == orders.count)
    for outcome in outcomes.withLock({ $0 }) { #expect(outcome.error == nil, "\(outcome.item)") }

    for (order, parts) in zip(orders, expected) {
      let first = directory.appendingPathComponent("\(order.name).\(format.fileExtension)").path
      for (file, part) in zip(OutputFile.names(first, count: parts.count), parts) {
        let written = FileManager.default.contents(atPath: file)
        #expect(written == part, "\(order.name): \(file) differs from a fresh engine's rendering")
      }
    }
  }
}
