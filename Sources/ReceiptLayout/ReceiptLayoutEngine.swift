import Foundation
@_spi(Internals) public import ReceiptModel

/// Lays out receipt documents: the one entry point of ReceiptLayout.
///
/// Holds the font cache, HarfBuzz fonts and buffers; create one and reuse it (layout is then warm).
/// Thread-safe: calls are serialised by an internal lock.
public final class ReceiptLayoutEngine: Sendable {
  private let state: Locked<State>

  // @unchecked: the font collection and layouter hold FreeType/HarfBuzz objects and caches;
  // they are only reached through `state`'s lock, one layout at a time.
  final class State: @unchecked Sendable {
    let fonts: FontCollection
    let text: TextLayouter
    let caches: LayoutCaches
    init(fontCache: String? = FontMatchCache.defaultPath(), caches: LayoutCaches = .process) {
      fonts = FontCollection(cacheFile: fontCache)
      text = TextLayouter(fonts: fonts)
      self.caches = caches
    }
  }

  /// Creates an engine that shares decoded images with the process's other engines.
  /// fontconfig's configuration is loaded when a font is first looked up and the answer is not in
  /// the font match cache (``FontMatchCache``).
  public convenience init() throws {
    try self.init(caches: .process)
  }

  /// Creates an engine that keeps decoded images in `caches` (its engine's context).
  package init(caches: LayoutCaches) throws {
    state = Locked(State(caches: caches))
  }

  /// An engine with the Latin fast itemization path or word-by-word shaping switched off, or with
  /// its own font match cache file (nil: none) — tests compare both ways.
  init(
    fastItemization: Bool = true, wordShaping: Bool = true, fontCache: String? = FontMatchCache.defaultPath()
  ) throws {
    let state = State(fontCache: fontCache)
    state.text.fastItemization = fastItemization
    state.text.wordShaping = wordShaping
    self.state = Locked(state)
  }

  /// Words served from the word shape cache so far (tests check that it is used).
  var wordCacheHits: Int { state.withLock { $0.text.words.hits } }

  /// Texts prepared afresh and texts served prepared, so far (tests check the paragraph cache).
  var paragraphCounts: (prepared: Int, kept: Int) {
    state.withLock { ($0.text.preparedTexts, $0.text.keptHits) }
  }

  /// Forgets every prepared paragraph: tests compare with fresh preparation, and benchmarks
  /// measure a receipt whose texts were never seen beside one whose texts were.
  package func forgetParagraphs() { state.withLock { $0.text.forgetParagraphs() } }

  /// Whether fontconfig's configuration has been loaded (a font match cache miss or fallback).
  var hasLoadedFontconfig: Bool { state.withLock { $0.fonts.hasLoadedFontconfig } }

  /// Lays out a document into continuous pages with their cut lengths.
  public func layout(_ document: ReceiptDocument) throws -> LaidOutReceipt {
    try state.withLock { state in
      _ = state.fonts.takeWarnings()
      state.fonts.allowedDirectories = document.fontDirectories
      state.text.monochrome = document.pageSetup.monochrome
      var layouter = BlockLayouter(text: state.text, setup: document.pageSetup, images: state.caches.images)
      var receipt = try layouter.layout(document)
      receipt.warnings = state.fonts.takeWarnings()
      return receipt
    }
  }

  /// Loads the hyphenation dictionaries of languages (BCP 47 tags) now rather than at the first
  /// word that needs one (a daemon before it reports ready); returns those that have one.
  @discardableResult
  public static func loadHyphenation(languages: [String]) -> [String] {
    languages.filter { Hyphenator.forLanguage($0) != nil }
  }

  /// The height a text takes at a width, unrounded, under the `.usesFontLeading` rule.
  public func measure(_ text: AttributedText, width: Double) throws -> Double {
    try state.withLock { state in
      return try state.text.layout(text, width: width).height
    }
  }

  /// The number of lines a text takes at a width.
  public func lineCount(_ text: AttributedText, width: Double) throws -> Int {
    try state.withLock { state in
      return try state.text.layout(text, width: width).lineCount
    }
  }

  /// The lines a text breaks into at a width, as strings (trailing spaces removed).
  public func lines(_ text: AttributedText, width: Double) throws -> [String] {
    try state.withLock { state in
      let box = try state.text.layout(text, width: width)
      var lines: [(y: Double, x: Double, text: String)] = []
      for case .glyphs(let run) in box.items { lines.append((run.origin.y, run.origin.x, run.text)) }
      let grouped = Dictionary(grouping: lines, by: { ($0.y * 1000).rounded() })
      return grouped.keys.sorted().map { key in
        grouped[key]!.sorted { $0.x < $1.x }.map(\.text).joined()
      }
    }
  }

  /// Shapes a string in the primary font of a descriptor with HarfBuzz alone (one `hb_shape`
  /// on a reused buffer) and returns the glyph count: the raw shaping cost that benchmarks put
  /// beside layout, so the overhead of layout above shaping is visible.
  public func shapeOnly(_ string: String, font: FontDescriptor) throws -> Int {
    try state.withLock { state in
      let f = try state.fonts.chain(for: font)[0]
      let units = Array(string.utf16)
      return units.withUnsafeBufferPointer { buffer in
        state.text.shaper.shape(
          buffer, range: 0..<buffer.count, font: f, size: font.size, horizontalScale: 1, verticalScale: 1,
          rightToLeft: false, script: 25, language: nil, ligatures: true
        ).count
      }
    }
  }

  /// Vertical metrics of the primary font of a descriptor, in points: ascent, descent, line gap.
  public func fontMetrics(_ font: FontDescriptor) throws -> (
    ascent: Double, descent: Double, lineGap: Double, face: FontFace
  ) {
    try state.withLock { state in
      let f = try state.fonts.chain(for: font)[0]
      let m = f.metrics
      return (m.ascent * font.size, m.descent * font.size, m.lineGap * font.size, f.face)
    }
  }
}
