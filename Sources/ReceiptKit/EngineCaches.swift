package import ReceiptMarkup
package import ReceiptRender

/// What an engine keeps between receipts, made once and handed down explicitly: binding's
/// parsed files, bindings, compiled elements and formatted values (``MarkupCaches``), passed to
/// every template library the engine opens; drawing's glyph runs, image dots and surfaces and
/// page memory (``RenderCaches``), passed to every renderer and print job it makes. The engines of the executables share ``process`` —
/// a batch's workers and a daemon's printers and previews parse a template once; a test makes
/// an engine with a context of its own to render with nothing kept. ARCHITECTURE.md,
/// "Process-wide caches", lists every cache with its bound.
package struct EngineCaches: Sendable {
  /// Binding's caches.
  package let markup: MarkupCaches
  /// Drawing's caches.
  package let render: RenderCaches

  /// The context the executables' engines share.
  package static let process = EngineCaches(markup: .process, render: .process)

  /// A new, empty context.
  package init() {
    self.init(markup: MarkupCaches(), render: RenderCaches())
  }

  private init(markup: MarkupCaches, render: RenderCaches) {
    (self.markup, self.render) = (markup, render)
  }
}
