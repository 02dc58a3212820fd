package import ReceiptLayout
package import ReceiptMarkup
package import ReceiptRender

/// What an engine keeps between receipts, made once and handed down explicitly: binding's
/// parsed files, bindings, compiled elements and formatted values (``MarkupCaches``), passed to
/// every template library the engine opens; layout's decoded images (``LayoutCaches``), passed
/// to its layout engine; drawing's glyph runs, image dots and surfaces and page memory
/// (``RenderCaches``), passed to every renderer and print job it makes. The engines of the
/// executables share ``process`` — a batch's workers and a daemon's printers and previews parse
/// a template once; a test makes an engine with a context of its own to render with nothing
/// kept. ARCHITECTURE.md, "Process-wide caches", lists every cache with its bound.
package struct EngineCaches: Sendable {
  /// Binding's caches.
  package let markup: MarkupCaches
  /// Layout's caches.
  package let layout: LayoutCaches
  /// Drawing's caches.
  package let render: RenderCaches

  /// The context the executables' engines share.
  package static let process = EngineCaches(markup: .process, layout: .process, render: .process)

  /// A new, empty context.
  package init() {
    self.init(markup: MarkupCaches(), layout: LayoutCaches(), render: RenderCaches())
  }

  private init(markup: MarkupCaches, layout: LayoutCaches, render: RenderCaches) {
    (self.markup, self.layout, self.render) = (markup, layout, render)
  }
}
