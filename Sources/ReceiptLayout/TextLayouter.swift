@_spi(Internals) import ReceiptModel

/// Lays out attributed text: itemizes paragraphs by bidi level, script and font (with fontconfig
/// fallback), shapes them with HarfBuzz, breaks lines at ICU opportunities and assembles lines.
///
/// Not thread-safe: one per ``ReceiptLayoutEngine``, used under its lock.
final class TextLayouter {
  let fonts: FontCollection
  let shaper = Shaper()
  /// Use ``itemizeSimple(_:text:)`` where it applies (tests turn it off to compare both paths).
  var fastItemization = true
  /// Shape the fast path's words from ``words`` where the font allows it (tests turn it off to
  /// compare both ways).
  var wordShaping = true
  let words = WordShapeCache()
  /// Emoji from monochrome fonts first (1-bit output; see `PageSetup.monochrome`).
  var monochrome = false
  private var breakIterators: [IteratorKey: BreakIterator] = [:]
  private struct IteratorKey: Hashable {
    var line: Bool
    var locale: String?
  }

  init(fonts: FontCollection) {
    self.fonts = fonts
  }

  /// A cached break iterator for a kind and locale. Chinese and Japanese lines break strictly
  /// (no line starts with a small kana or `ー`, as JIS X 4051 and Pango have it).
  private func breakIterator(_ kind: BreakIterator.Kind, locale: String?) throws -> BreakIterator {
    let key = IteratorKey(line: kind == .line, locale: locale)
    if let iterator = breakIterators[key] { return iterator }
    var name = locale
    if kind == .line, let locale, ["ja", "zh"].contains(locale.prefix(2).lowercased()), !locale.contains("@") {
      name = locale + "@lb=strict"
    }
    let iterator = try BreakIterator(kind, locale: name)
    breakIterators[key] = iterator
    return iterator
  }

  /// Paragraphs prepared already (itemized, shaped, break points found), by everything that
  /// decides them: a row asks for a cell's natural and narrowest widths before it lays the cell
  /// out, and the next receipt of a batch or a daemon's day repeats the store's header, the
  /// footer and most item names. With them, the text's widths and its boxes at the last widths
  /// it was laid out at (``KeptText``). Bounded: at most ``keptParagraphLimit`` texts of at most
  /// ``keptTextLimit`` UTF-16 units each and ``keptUnitsLimit`` in all, a kept box counting as
  /// its text again (a hostile order's megabyte paragraphs are prepared, never kept); when full
  /// it keeps the texts asked for again since it last filled (the header, the menu) and lets go
  /// of the others (an order's number), see ``KeptTable``.
  /// (Unchecked exclusivity, here and for the counters below: a layouter is one worker's, and
  /// no access to them calls back into it; checked at run time they were half a percent of a
  /// receipt — the table is asked hundreds of times a receipt.)
  @exclusivity(unchecked) private var kept = KeptTable<KeptKey, KeptText>(capacity: keptParagraphLimit)
  @exclusivity(unchecked) private var keptUnits = 0
  static let keptParagraphLimit = 4096
  static let keptTextLimit = 4096
  static let keptUnitsLimit = 1 << 20
  /// Boxes kept per text (a text is laid out at one or two widths: a cell's, a page's).
  static let keptBoxesPerText = 2
  /// Texts prepared afresh, and served from ``kept`` (tests check that both happen).
  @exclusivity(unchecked) private(set) var preparedTexts = 0
  @exclusivity(unchecked) private(set) var keptHits = 0

  /// A text's prepared paragraphs and what was worked out from them: a text is asked for its
  /// natural and narrowest widths and laid out, receipt after receipt, with the same answers.
  final class KeptText {
    let paragraphs: [Paragraph]
    /// Whether it is in ``kept`` (what is worked out is kept with it only then).
    let isKept: Bool
    var naturalWidth: Double?
    var minContentWidth: Double?
    var boxes: [(width: Double, box: TextBox)] = []
    /// What it counts against ``keptUnitsLimit``: its text's UTF-16 units, once more per box.
    var units: Int
    init(paragraphs: [Paragraph], isKept: Bool, units: Int) {
      (self.paragraphs, self.isKept, self.units) = (paragraphs, isKept, units)
    }
  }

  /// Forgets every prepared paragraph (tests compare kept paragraphs with fresh ones).
  func forgetParagraphs() {
    kept.removeAll()
    keptUnits = 0
  }

  /// Splits text into paragraphs at `\n` and prepares each (itemized, shaped, break points).
  func paragraphs(of text: AttributedText, mode: LineBreakMode) throws -> [Paragraph] {
    try keptText(of: text, mode: mode).paragraphs
  }

  /// The text's paragraphs, from ``kept`` or prepared (and kept when small enough).
  func keptText(of text: AttributedText, mode: LineBreakMode) throws -> KeptText {
    let key = KeptKey(text: text, mode: mode, monochrome: monochrome, fontDirectories: fonts.allowedDirectories)
    if let entry = kept.value(for: key) {
      // What preparing would have done beside shaping, done again for this document: each
      // font file named by path is checked, and a missing family's warning is given.
      for run in text.runs { try fonts.check(run.attributes.font) }
      keptHits += 1
      return entry
    }
    let paragraphs = try preparing(text, mode: mode)
    preparedTexts += 1
    let units = text.utf16Count
    guard units <= Self.keptTextLimit else { return KeptText(paragraphs: paragraphs, isKept: false, units: units) }
    if kept.count >= Self.keptParagraphLimit || keptUnits + units > Self.keptUnitsLimit { makeRoom(units) }
    let entry = KeptText(paragraphs: paragraphs, isKept: true, units: units)
    kept.keep(entry, for: key)  // room was made above
    keptUnits += units
    return entry
  }

  /// Keeps a box laid out from a kept text at a width (within ``keptUnitsLimit``).
  func keep(_ box: TextBox, width: Double, in entry: KeptText, units: Int) {
    guard entry.isKept, entry.boxes.count < Self.keptBoxesPerText, keptUnits + units <= Self.keptUnitsLimit else {
      return
    }
    entry.boxes.append((width, box))
    entry.units += units
    keptUnits += units
  }

  /// Lets go of the texts not asked for again since the table last filled; of all of them when
  /// the others still leave no room for `units`.
  private func makeRoom(_ units: Int) {
    kept.makeRoom()
    keptUnits = kept.values.reduce(0) { $0 + $1.units }
    if keptUnits + units > Self.keptUnitsLimit / 2 {
      kept.removeAll()
      keptUnits = 0
    }
  }

  private func preparing(_ text: AttributedText, mode: LineBreakMode) throws -> [Paragraph] {
    let units = Array(text.string.utf16)
    let utf16 = text.string.utf16
    var result: [Paragraph] = []
    var start = 0
    var startIndex = utf16.startIndex
    for i in 0...units.count where i == units.count || units[i] == 0x0A {
      var p = try paragraph(units[start..<i], offset: start, text: text, mode: mode)
      // Split on U+000A code units (Swift treats "\r\n" as one Character).
      let endIndex = utf16.index(startIndex, offsetBy: i - start)
      p.string = text.string[startIndex..<endIndex]
      result.append(p)
      if i < units.count { startIndex = utf16.index(after: endIndex) }
      start = i + 1
    }
    return result
  }

  private func paragraph(_ slice: ArraySlice<UInt16>, offset: Int, text: AttributedText, mode: LineBreakMode) throws
    -> Paragraph
  {
    let simple = slice.allSatisfy(Self.isSimple)
    var p = Paragraph(units: simple ? Array(slice) : Self.limitingMarks(slice), offset: offset)
    let n = p.units.count
    p.hasTabs = p.units.contains(0x09)
    let base: Int
    switch text.paragraphStyle.baseDirection {
    case .auto: base = Bidi.autoLevel
    case .leftToRight: base = 0
    case .rightToLeft: base = 1
    }
    let language = text.attributes(at: offset).language
    var levels: [UInt8] = []
    if !(simple && base != 1) {
      (levels, p.paragraphLevel) = try Bidi.levels(of: slice, base: base)
    }
    if n == 0 {
      p.prefix = [0]  // an empty paragraph is 0 wide (natural widths of empty cells ask)
      return p
    }
    if simple {
      p.graphemes = Array(1...n)
    } else {
      p.graphemes = try breakIterator(.character, locale: language).boundaries(of: slice)
    }
    switch mode {
    case .char, .truncate: p.breaks = p.graphemes
    case .word:
      p.breaks = try breakIterator(.line, locale: language).boundaries(of: slice)
      if p.hasTabs {
        // Text after a tab may always move to the next line (at its stop), even where UAX #14
        // keeps it (a tab before "-3,28 €").
        let afterTabs = p.units.indices.filter { p.units[$0] == 0x09 && $0 + 1 < n }.map { $0 + 1 }
        p.breaks = Array(Set(p.breaks).union(afterTabs)).sorted()
      }
      if text.paragraphStyle.hyphenation == .auto || slice.contains(0xAD) {
        hyphenate(&p, text: text)
      }
    }
    let fast = fastItemization && simple && p.paragraphLevel == 0 ? try itemizeSimple(&p, text: text) : false
    if !fast {
      if levels.isEmpty { levels = [UInt8](repeating: 0, count: n) }
      try itemize(&p, levels: levels, text: text)
    }
    measure(&p)
    return p
  }

  /// Most combining marks drawn on one base character; the rest are shaped as U+200B (zero
  /// width, not a mark). HarfBuzz's mark attachment searches back over every earlier mark, so
  /// 100,000 marks on one letter ("Zalgo" text) took half a minute; no script stacks more than
  /// a handful. The paragraph's text (what a PDF extracts) keeps every mark.
  static let maxMarksPerBase = 32

  static func limitingMarks(_ units: ArraySlice<UInt16>) -> [UInt16] {
    var result = Array(units)
    var run = 0
    for (offset, length, value) in scalars(of: units) {
      let category = Unicode.Scalar(value)?.properties.generalCategory
      guard category == .nonspacingMark || category == .enclosingMark || category == .spacingMark else {
        run = 0
        continue
      }
      run += 1
      if run > maxMarksPerBase {
        for k in offset..<(offset + length) { result[k] = 0x200B }
      }
    }
    return result
  }

  /// The UTF-16 units of the simple path: Latin-1 and Latin Extended below U+0300 (no combining
  /// marks), and the punctuation, currency and letterlike signs Latin receipts print ("4,50 €",
  /// "‘…’", "№", "™", the narrow no-break space French digits are grouped with). Each is a whole
  /// grapheme of Common or Latin script, and none is strong right to left or a bidi control, so a
  /// paragraph of them has one left-to-right level (tests compare both paths).
  static let simpleRanges: [ClosedRange<UInt16>] = [
    0x0000...0x02FF, 0x2010...0x2027, 0x202F...0x202F, 0x2030...0x205E, 0x20A0...0x20C0, 0x2116...0x2116,
    0x2122...0x2122,
  ]

  static func isSimple(_ unit: UInt16) -> Bool {
    if unit < 0x0300 { return unit != 0x0D }
    return simpleRanges.dropFirst().contains { $0.contains(unit) }
  }

  /// Fast path for left-to-right paragraphs of ``simpleRanges`` (no combining marks): one level, one script (Latin if any character is Latin), and items only at
  /// attribute-run boundaries and tabs. It gives the same items as ``itemize(_:levels:text:)``
  /// and declines (returns false) when the primary font lacks a non-ASCII character, which then
  /// needs fallback.
  private func itemizeSimple(_ p: inout Paragraph, text: AttributedText) throws -> Bool {
    let n = p.units.count
    let latin = p.units.contains { UnicodeProperties.scriptCode(UInt32($0)) != UnicodeProperties.commonScript }
    let script = latin ? UnicodeProperties.scriptCode(0x41) : UnicodeProperties.commonScript
    var pending: [(range: Range<Int>, attributes: TextAttributes, font: Font, tab: Bool)] = []
    for run in text.runs {
      let lo = max(run.range.lowerBound - p.offset, 0)
      let hi = min(run.range.upperBound - p.offset, n)
      guard lo < hi else { continue }
      let font = try fonts.chain(for: run.attributes.font)[0]
      var start = lo
      for i in lo..<hi {
        let unit = p.units[i]
        if unit >= 0x80, !font.covers(UInt32(unit)) { return false }
        if unit == 0x09 {
          if start < i { pending.append((start..<i, run.attributes, font, false)) }
          pending.append((i..<(i + 1), run.attributes, font, true))
          start = i + 1
        }
      }
      if start < hi { pending.append((start..<hi, run.attributes, font, false)) }
    }
    p.items = pending.map { shape(p, $0.range, $0.font, $0.attributes, 0, script, $0.tab, byWords: true) }
    return true
  }

  /// Splits a paragraph into items of one attribute run, level, script and font; shapes each.
  private func itemize(_ p: inout Paragraph, levels: [UInt8], text: AttributedText) throws {
    let all = scalars(of: p.units[...])
    // Script per scalar; common and inherited characters take their neighbour's script.
    var scripts = all.map { UnicodeProperties.scriptCode($0.value) }  // ASCII fast path inside
    var last: Int32? = nil
    for i in scripts.indices {
      if scripts[i] == UnicodeProperties.commonScript || scripts[i] == UnicodeProperties.inheritedScript {
        if let last { scripts[i] = last }
      } else {
        last = scripts[i]
      }
    }
    if let first = scripts.first(where: { $0 > UnicodeProperties.inheritedScript }) {
      for i in scripts.indices where scripts[i] <= UnicodeProperties.inheritedScript { scripts[i] = first }
    }
    // Font per grapheme.
    var scalarIndex = 0
    var graphemeStart = 0
    struct Key: Equatable {
      var run: Int
      var level: UInt8
      var script: Int32
      var font: ObjectIdentifier
      var tab: Bool
    }
    var current: (key: Key, start: Int, font: Font, attributes: TextAttributes)?
    var keyRun = 0
    var chainRun = -1
    var chain: [Font] = []
    var attributes = TextAttributes()
    for boundary in p.graphemes {
      let first = scalarIndex
      while scalarIndex < all.count, all[scalarIndex].offset < boundary { scalarIndex += 1 }
      let cluster = all[first..<scalarIndex]
      let absolute = p.offset + graphemeStart
      while keyRun + 1 < text.runs.count, text.runs[keyRun].range.upperBound <= absolute { keyRun += 1 }
      if chainRun != keyRun {
        attributes = text.runs.isEmpty ? TextAttributes() : text.runs[keyRun].attributes
        chain = try fonts.chain(for: attributes.font)
        chainRun = keyRun
      }
      let font: Font
      if cluster.count == 1, cluster.first!.value < 0x80 {
        font = chain[0]
      } else {
        font = try self.font(for: cluster.map(\.value), attributes: attributes)
      }
      let isTab = cluster.first?.value == 0x09
      let key = Key(
        run: keyRun, level: levels[graphemeStart], script: scripts[first], font: ObjectIdentifier(font), tab: isTab)
      if let c = current, c.key == key, !isTab {
      } else {
        if let c = current {
          p.items.append(shape(p, c.start..<graphemeStart, c.font, c.attributes, c.key.level, c.key.script, c.key.tab))
        }
        current = (key, graphemeStart, font, attributes)
      }
      graphemeStart = boundary
    }
    if let c = current {
      p.items.append(shape(p, c.start..<p.units.count, c.font, c.attributes, c.key.level, c.key.script, c.key.tab))
    }
  }

  /// The font for one grapheme: the first of the style's fonts that has every visible character,
  /// for emoji presentation a monochrome font (in 1-bit output, when one has the emoji) or a
  /// color emoji font, else fontconfig's fallback, else the primary font.
  private func font(for cluster: [UInt32], attributes: TextAttributes) throws -> Font {
    let chain = try fonts.chain(for: attributes.font)
    guard let base = cluster.first else { return chain[0] }
    let visible = cluster.filter { !UnicodeProperties.isDefaultIgnorable($0) }
    let emoji =
      UnicodeProperties.isExtendedPictographic(base)
      && (UnicodeProperties.isEmojiPresentation(base) || cluster.contains(0xFE0F))
    if emoji, monochrome,
      let font = fonts.fallback(for: base, style: attributes.font, emoji: false, color: false),
      visible.allSatisfy({ font.covers($0) })
    {
      return font
    }
    if emoji, let font = fonts.fallback(for: base, style: attributes.font, emoji: true), font.face.isColor {
      return font
    }
    if base < 0x80 || base == 0x09 { return chain[0] }
    if let font = chain.first(where: { f in visible.allSatisfy { f.covers($0) } }) { return font }
    if let missing = visible.first(where: { !chain[0].covers($0) }),
      let font = fonts.fallback(for: missing, style: attributes.font, emoji: false)
    {
      return font
    }
    return chain[0]
  }

  /// Shapes one item of a paragraph (with the whole paragraph as context), or word by word from
  /// the cache when `byWords` and the font allows it.
  func shape(
    _ p: Paragraph, _ range: Range<Int>, _ font: Font, _ attributes: TextAttributes, _ level: UInt8, _ script: Int32,
    _ isTab: Bool, context: Range<Int>? = nil, byWords: Bool = false
  ) -> ShapedItem {
    var item = ShapedItem(
      range: range, attributes: attributes, font: font, level: level, script: script, glyphs: [], isTab: isTab)
    guard !isTab else { return item }  // a tab is placed, not shaped
    var glyphs: [ShapedGlyph]
    if byWords, level == 0, let shaped = shapeByWords(p, range, font, attributes, script) {
      glyphs = shaped
    } else {
      let context = context ?? 0..<p.units.count
      glyphs = p.units.withUnsafeBufferPointer { buffer in
        shaper.shape(
          UnsafeBufferPointer(rebasing: buffer[context]),
          range: (range.lowerBound - context.lowerBound)..<(range.upperBound - context.lowerBound),
          font: font, size: attributes.font.size, horizontalScale: attributes.horizontalScale,
          verticalScale: attributes.verticalScale, rightToLeft: level & 1 == 1, script: script,
          language: attributes.language, ligatures: attributes.letterSpacing == 0)
      }
      if context.lowerBound != 0 {
        for i in glyphs.indices { glyphs[i].cluster += context.lowerBound }
      }
    }
    if attributes.letterSpacing != 0 {
      for i in glyphs.indices where i + 1 == glyphs.count || glyphs[i + 1].cluster != glyphs[i].cluster {
        glyphs[i].advance += attributes.letterSpacing
      }
    }
    item.glyphs = glyphs
    return item
  }

  /// Fills the per-offset cluster advances and their prefix sums.
  private func measure(_ p: inout Paragraph) {
    p.advances = [Double](repeating: 0, count: p.units.count)
    for item in p.items {
      for glyph in item.glyphs { p.advances[glyph.cluster] += glyph.advance }
    }
    p.prefix = [Double](repeating: 0, count: p.units.count + 1)
    for i in p.advances.indices { p.prefix[i + 1] = p.prefix[i] + p.advances[i] }
  }
}
