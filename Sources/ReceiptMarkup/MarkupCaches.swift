@_spi(Internals) import ReceiptModel

/// What binding keeps between receipts: parsed files, parsed bindings, compiled elements, date
/// formatters, formatted numbers and `$receipt` facts. An engine's context, handed to every
/// ``TemplateLibrary`` it opens and from there to the renderer, the strings and the formatter —
/// no binding code reaches a cache any other way. The executables' engines share ``process``
/// (a batch's workers, a daemon's printers and previews parse a template once); a test makes a
/// context of its own to bind with nothing kept. Each part is bounded (ARCHITECTURE.md,
/// "Process-wide caches") and keyed by everything its answer depends on.
package final class MarkupCaches: Sendable {
  /// Templates, includes, style sheets and strings files, parsed.
  let files = ParsedFileCache()
  /// Binding texts and attribute expressions, parsed.
  let bindings = ParsedBindings()
  /// Elements that bind nothing, compiled per template, style sheets and resolution.
  let elements = CompiledElements()
  /// Date formatters per pattern, locale and zone.
  let dates = DateFormatters()
  /// Formatted numbers and amounts.
  let numbers = NumberStrings()
  /// `$receipt` facts per paper, resolution and model (at most ``factsCapacity``).
  let facts = Locked<[TemplateRenderer.FactsKey: JSONValue]>([:])
  static let factsCapacity = 64

  /// The context the executables' engines share: made once, at its first use.
  package static let process = MarkupCaches()

  /// An empty context.
  package init() {}
}
