/// What layout keeps between receipts beside an engine's own fonts and shaped text: decoded
/// images (``DecodedImageCache``). Part of an engine's context (`EngineCaches`), handed to the
/// layout engine it makes (``ReceiptLayoutEngine/init(caches:)``); the executables' engines share
/// ``process``. Hyphenation dictionaries are not in it: they are the process's installed
/// dictionaries (`Hyphenator`), whoever lays out.
package final class LayoutCaches: Sendable {
  /// Logos decoded, by their bytes.
  let images = DecodedImageCache()

  /// The context the executables' engines share: made once, at its first use.
  package static let process = LayoutCaches()

  /// An empty context.
  package init() {}
}
