import Foundation
@_spi(Internals) import ReceiptModel

extension TemplateRenderer {
  /// `$receipt`: the paper (`name`, `width` and `printable` in millimetres), the resolution
  /// (`dpi`) and the printer model's name (`model`, when known).
  static func facts(of setup: PageSetup, model: String?, caches: MarkupCaches) -> JSONValue {
    // Worked out once per paper, resolution and model: through `Decimal`, each receipt paid
    // more for these five values than for binding a short order.
    let key = FactsKey(
      paper: setup.paper.name, width: setup.paper.width.points, printable: setup.paper.printableWidth.points,
      dpi: setup.resolution.dpi, model: model)
    if let known = caches.facts.withLock({ $0[key] }) { return known }
    let made = makeFacts(of: setup, model: model)
    caches.facts.withLock { facts in
      if facts.count >= MarkupCaches.factsCapacity { facts.removeAll() }
      facts[key] = made
    }
    return made
  }

  struct FactsKey: Hashable, Sendable {
    var paper: String
    var width: Double
    var printable: Double
    var dpi: Int
    var model: String?
  }

  private static func makeFacts(of setup: PageSetup, model: String?) -> JSONValue {
    func millimetres(_ length: Length) -> JSONValue {
      .number(JSONNumber(Decimal((length.millimetres * 100).rounded()) / 100) ?? JSONNumber(0))
    }
    return .object([
      "paper": .object([
        "name": .string(setup.paper.name), "width": millimetres(setup.paper.width),
        "printable": millimetres(setup.paper.printableWidth),
      ]),
      "dpi": .number(JSONNumber(setup.resolution.dpi)), "model": model.map { .string($0) } ?? .null,
    ])
  }
}
