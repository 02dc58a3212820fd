import Foundation
import ReceiptModel

/// Laid-out text relative to its box's top-left corner.
struct TextBox {
  var items: [LaidOutItem] = []
  var height: Double = 0
  /// The widest line including indents.
  var width: Double = 0
  var firstBaseline: Double?
  var lineCount = 0
}

/// A piece of a line: glyphs of one item (or an ellipsis) in one font and direction.
private struct LinePiece {
  var glyphs: [ShapedGlyph]
  var font: Font
  var attributes: TextAttributes
  var level: UInt8
  var range: Range<Int>
  var text: String
  var isTab: Bool
  var width: Double { glyphs.reduce(0) { $0 + $1.advance } }
}

extension TextLayouter {
  /// Lays out text in a box of the given width.
  func layout(_ text: AttributedText, width: Double) throws -> TextBox {
    let style = text.paragraphStyle
    let entry = try keptText(of: text, mode: style.lineBreakMode)
    if let kept = entry.boxes.first(where: { $0.width == width }) { return kept.box }
    let paragraphs = entry.paragraphs
    let available = max(0, width - style.headIndent - style.tailIndent)
    let firstAvailable = max(0, width - style.firstLineIndent - style.tailIndent)
    var box = TextBox()
    for (index, p) in paragraphs.enumerated() {
      let budget = style.maxLines > 0 ? style.maxLines - box.lineCount : 0
      if style.maxLines > 0 && budget <= 0 { break }
      let spans = breakLines(p, available: available, firstAvailable: firstAvailable, style: style, budget: budget)
      for (i, span) in spans.enumerated() {
        if box.lineCount > 0 { box.height += style.lineSpacing }
        let last = i == spans.count - 1
        try appendLine(
          p, span, to: &box, text: text, width: width, indent: i == 0 ? style.firstLineIndent : style.headIndent,
          available: i == 0 ? firstAvailable : available, last: last)
      }
      if index < paragraphs.count - 1 { box.height += style.paragraphSpacing }
    }
    keep(box, width: width, in: entry, units: text.utf16Count)
    return box
  }

  /// The width the text takes without wrapping (its widest paragraph), indents included.
  func naturalWidth(_ text: AttributedText) throws -> Double {
    let style = text.paragraphStyle
    let entry = try keptText(of: text, mode: .word)
    if let width = entry.naturalWidth { return width }
    var widest = 0.0
    for p in entry.paragraphs {
      widest = max(widest, lineWidth(p, 0, p.units.count, available: .greatestFiniteMagnitude / 4, style: style))
    }
    let width = widest + style.firstLineIndent + style.tailIndent
    entry.naturalWidth = width
    return width
  }

  /// The narrowest width the text takes when it wraps at every opportunity (its widest word),
  /// indents included: what a row cell may shrink to before words have to be split.
  func minContentWidth(_ text: AttributedText) throws -> Double {
    let style = text.paragraphStyle
    let entry = try keptText(of: text, mode: .word)
    if let width = entry.minContentWidth { return width }
    var widest = 0.0
    for p in entry.paragraphs where !p.units.isEmpty {
      var start = 0
      for b in p.breaks where !p.hyphenBreaks.contains(b) {
        widest = max(widest, p.width(start..<p.trimmingTrailingSpaces(start, b)))
        start = b
      }
    }
    let width = widest + max(style.headIndent, style.firstLineIndent) + style.tailIndent
    entry.minContentWidth = width
    return width
  }

  private func appendLine(
    _ p: Paragraph, _ span: LineSpan, to box: inout TextBox, text: AttributedText, width: Double,
    indent: Double, available: Double, last: Bool
  ) throws {
    let style = text.paragraphStyle
    let end = p.trimmingTrailingSpaces(span.start, span.end)
    var pieces = self.pieces(p, span.start, end)
    if span.truncated { pieces.append(ellipsis(p, at: end)) }
    if span.hyphenated, !span.truncated { pieces.append(hyphen(p, at: end)) }

    // Line height: Apple's .usesFontLeading rule over every font on the line.
    var ascent = 0.0
    var descent = 0.0
    var gap = 0.0
    for piece in pieces {
      let m = piece.font.metrics
      let k = piece.attributes.font.size * piece.attributes.verticalScale
      ascent = max(ascent, m.ascent * k)
      descent = max(descent, m.descent * k)
      gap = max(gap, m.lineGap * k)
    }
    if pieces.isEmpty {
      let attributes = text.attributes(at: p.offset + span.start)
      let m = try fonts.chain(for: attributes.font)[0].metrics
      let k = attributes.font.size * attributes.verticalScale
      (ascent, descent, gap) = (m.ascent * k, m.descent * k, m.lineGap * k)
    }
    let top = box.height
    let height = ascent + descent + gap
    let baseline = top + ascent

    // Segments between tabs, each in visual order, placed at their tab stops.
    let continuing = continuesTab(p, span.start)
    var segments: [[LinePiece]] = continuing ? [[], []] : [[]]
    var tabs: [LinePiece?] = continuing ? [nil] : []
    for piece in pieces {
      if piece.isTab {
        segments.append([])
        tabs.append(piece)
      } else {
        segments[segments.count - 1].append(piece)
      }
    }
    let widths = segments.map { $0.reduce(0) { $0 + $1.width } }
    var placements = [TabPlacement(start: 0, stop: nil)]
    if segments.count > 1 {
      let ranges = tabSegments(p, span.start, end)
      var decimals = ranges.map { decimalOffset(p, $0) }
      var gaps = tabGaps(p, ranges, style: style)
      while decimals.count < segments.count { decimals.append(nil) }
      while gaps.count < segments.count { gaps.append(0) }
      placements = resolveTabs(widths: widths, decimals: decimals, gaps: gaps, style: style, available: available)
    }
    let lineWidth = placements[placements.count - 1].start + widths[widths.count - 1]

    // Alignment, in leading-edge coordinates, and justification.
    let rtl = p.rightToLeft
    let free = max(0, available - lineWidth)
    var shift = 0.0
    var extraPerSpace = 0.0
    switch style.alignment {
    case .leading: shift = 0
    case .trailing: shift = free
    case .center: shift = free / 2
    case .left: shift = rtl ? free : 0
    case .right: shift = rtl ? 0 : free
    case .justified:
      let spaces = pieces.reduce(0) { n, piece in n + piece.glyphs.filter { isSpace($0, of: piece, in: p) }.count }
      if !last, segments.count == 1, spaces > 0 { extraPerSpace = free / Double(spaces) }
    }

    let boxLeft = rtl ? style.tailIndent : indent
    let boxRight = width - (rtl ? indent : style.tailIndent)
    var tabEnd = widths[0]
    for (index, segment) in segments.enumerated() {
      let segmentWidth = extraPerSpace > 0 ? available : widths[index]
      let start = placements[index].start
      var x = rtl ? boxRight - shift - start - segmentWidth : boxLeft + shift + start
      if let leader = placements[index].stop?.leader, let tab = tabs[index - 1] {
        emitLeader(
          leader, from: tabEnd, to: start, tab: tab, rtl: rtl, boxLeft: boxLeft + shift,
          boxRight: boxRight - shift, baseline: baseline, into: &box.items)
      }
      tabEnd = start + widths[index]
      let order = Bidi.visualOrder(levels: segment.map(\.level))
      for i in order {
        var piece = segment[i]
        if extraPerSpace > 0 {
          for g in piece.glyphs.indices where isSpace(piece.glyphs[g], of: piece, in: p) {
            piece.glyphs[g].advance += extraPerSpace
          }
        }
        emit(piece, x: x, top: top, height: height, baseline: baseline, into: &box.items)
        x += piece.width
      }
    }
    box.height = top + height
    box.width = max(box.width, lineWidth + indent + style.tailIndent)
    if box.firstBaseline == nil { box.firstBaseline = baseline }
    box.lineCount += 1
  }

  /// The pieces of a line in logical order: items cut to the line, reshaped where a cut falls
  /// where HarfBuzz says breaking is unsafe.
  private func pieces(_ p: Paragraph, _ start: Int, _ end: Int) -> [LinePiece] {
    guard start < end else { return [] }
    var result: [LinePiece] = []
    var i = p.itemIndex(at: start)
    while i < p.items.count, p.items[i].range.lowerBound < end {
      let item = p.items[i]
      let lo = max(start, item.range.lowerBound)
      let hi = min(end, item.range.upperBound)
      i += 1
      guard lo < hi else { continue }
      var glyphs = item.glyphs
      if lo != item.range.lowerBound || hi != item.range.upperBound {
        if !item.isTab && (!safeBreak(item, lo) || !safeBreak(item, hi)) {
          glyphs =
            shape(p, lo..<hi, item.font, item.attributes, item.level, item.script, false, context: start..<end).glyphs
        } else {
          glyphs = Array(glyphs[item.glyphRange(lo..<hi)])
        }
      }
      let text = p.text(lo..<hi)
      result.append(
        LinePiece(
          glyphs: glyphs, font: item.font, attributes: item.attributes, level: item.level, range: lo..<hi,
          text: text, isTab: item.isTab))
    }
    return result
  }

  /// Whether a line may start or end at `offset` inside an item without reshaping.
  private func safeBreak(_ item: ShapedItem, _ offset: Int) -> Bool {
    if offset == item.range.lowerBound || offset == item.range.upperBound { return true }
    let starting = item.glyphRange(offset..<(offset + 1))
    return !starting.isEmpty && item.glyphs[starting].allSatisfy { $0.cluster != offset || !$0.unsafeToBreak }
  }

  /// Whether a glyph is a space of the paragraph (the glyphs justification stretches).
  private func isSpace(_ glyph: ShapedGlyph, of piece: LinePiece, in p: Paragraph) -> Bool {
    piece.range.contains(glyph.cluster) && p.units[glyph.cluster] == 0x20
  }

  /// Shapes a short string outside any paragraph (an ellipsis, a leader character).
  private func shapeStandalone(_ string: String, font: Font, attributes: TextAttributes, level: UInt8) -> [ShapedGlyph]
  {
    let units = Array(string.utf16)
    let q = Paragraph(units: units, offset: 0)
    let script = UnicodeProperties.scriptCode(UInt32(units[0]))
    return shape(q, 0..<units.count, font, attributes, level, script, false).glyphs
  }

  /// An ellipsis in the font of the text where a truncated line ends.
  private func ellipsis(_ p: Paragraph, at end: Int) -> LinePiece {
    let item = p.items[p.itemIndex(at: max(0, min(end, p.units.count - 1)))]
    return appended(item.font.covers(0x2026) ? "…" : "...", like: item, level: p.paragraphLevel)
  }

  /// The hyphen that ends a line broken inside a word, in the font of the text before it.
  private func hyphen(_ p: Paragraph, at end: Int) -> LinePiece {
    let item = p.items[p.itemIndex(at: max(0, end - 1))]
    return appended("-", like: item, level: item.level)
  }

  /// A piece the layout adds to a line (not in the source text: no clusters), in an item's font.
  private func appended(_ text: String, like item: ShapedItem, level: UInt8) -> LinePiece {
    var glyphs = shapeStandalone(text, font: item.font, attributes: item.attributes, level: level)
    for i in glyphs.indices { glyphs[i].cluster = -1 }
    return LinePiece(
      glyphs: glyphs, font: item.font, attributes: item.attributes, level: level, range: 0..<0, text: text,
      isTab: false)
  }

  /// Fills a tab's space with its stop's leader character, on a grid so that leaders line up.
  private func emitLeader(
    _ leader: Character, from: Double, to: Double, tab: LinePiece, rtl: Bool, boxLeft: Double, boxRight: Double,
    baseline: Double, into items: inout [LaidOutItem]
  ) {
    let shaped = shapeStandalone(String(leader), font: tab.font, attributes: tab.attributes, level: 0)
    let advance = shaped.reduce(0) { $0 + $1.advance }
    guard advance > 0.1 else { return }
    // A gap of half a space at each end, whatever the grid: a dot must not touch the text it
    // leads to ("…….-2,92 €" read as a different amount once a 180-dpi head rounded them together).
    let space = (tab.font.advance(of: 0x20) ?? 0.25) * tab.attributes.font.size * tab.attributes.horizontalScale
    let gap = space / 2
    let first = ((from + gap) / advance).rounded(.up)
    let last = ((to - gap) / advance).rounded(.down) - 1
    guard last >= first else { return }
    var glyphs: [Glyph] = []
    var text = ""
    var k = first
    while k <= last {
      let u = k * advance
      let x = rtl ? boxRight - u - advance : boxLeft + u
      for g in shaped {
        glyphs.append(Glyph(id: g.id, x: x + g.xOffset, y: -g.yOffset, cluster: text.utf16.count))
      }
      text.append(leader)
      k += 1
    }
    let origin = Point(x: 0, y: baseline)
    items.append(
      .glyphs(
        GlyphRun(
          font: tab.font.face, size: tab.attributes.font.size, horizontalScale: tab.attributes.horizontalScale,
          verticalScale: tab.attributes.verticalScale, origin: origin, glyphs: glyphs, text: text,
          rightToLeft: false, ink: .black, width: (last - first + 1) * advance)))
  }

  /// Color emoji are drawn as images, which carry no text: beneath them goes the same text in a
  /// monochrome font in the paper's color (invisible, covered by the image), so a PDF's text layer
  /// holds the emoji as OCR'd PDFs hold their words.
  private func emitTextLayer(_ piece: LinePiece, x: Double, baseline: Double, into items: inout [LaidOutItem]) {
    guard let first = piece.text.unicodeScalars.first?.value,
      let font = fonts.fallback(for: first, style: piece.attributes.font, emoji: false, color: false)
    else { return }
    let shaped = shapeStandalone(piece.text, font: font, attributes: piece.attributes, level: piece.level)
    var pen = 0.0
    var glyphs: [Glyph] = []
    for g in shaped {
      glyphs.append(Glyph(id: g.id, x: pen + g.xOffset, y: -g.yOffset, cluster: g.cluster))
      pen += g.advance
    }
    let a = piece.attributes
    items.append(
      .glyphs(
        GlyphRun(
          font: font.face, size: a.font.size, horizontalScale: a.horizontalScale, verticalScale: a.verticalScale,
          origin: Point(x: x, y: baseline), glyphs: glyphs, text: piece.text, rightToLeft: piece.level & 1 == 1,
          ink: a.inverse ? .black : .white, width: pen)))
  }

  /// Text without bidi controls (U+200E/F, U+202A–202E, U+2066–2069) and, when it had any, each
  /// old UTF-16 offset's new offset plus one, negated for a control (which takes the offset of
  /// the next kept character; its glyph is dropped when it has no advance).
  static func withoutBidiControls(_ text: String) -> (String, [Int]?) {
    func isControl(_ v: UInt32) -> Bool {
      v == 0x200E || v == 0x200F || (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v)
    }
    guard text.unicodeScalars.contains(where: { isControl($0.value) }) else { return (text, nil) }
    var kept = String.UnicodeScalarView()
    var offsets: [Int] = []
    var next = 0
    for scalar in text.unicodeScalars {
      let control = isControl(scalar.value)
      for _ in 0..<scalar.utf16.count { offsets.append(control ? -(next + 1) : next + 1) }
      if !control {
        kept.append(scalar)
        next += scalar.utf16.count
      }
    }
    return (String(kept), offsets)
  }

  /// Paints one piece: inverse band, glyphs, underline and strikethrough.
  private func emit(
    _ piece: LinePiece, x: Double, top: Double, height: Double, baseline: Double, into items: inout [LaidOutItem]
  ) {
    let width = piece.width
    let a = piece.attributes
    if a.inverse {
      items.append(.rect(FilledRect(rect: Rect(x: x, y: top, width: width, height: height), ink: .black)))
    }
    if piece.font.face.isColor { emitTextLayer(piece, x: x, baseline: baseline, into: &items) }
    var glyphs: [Glyph] = []
    glyphs.reserveCapacity(piece.glyphs.count)
    var pen = 0.0
    // Bidi controls (isolates around bound values, marks) order the text but are not text: the
    // run's text (what a PDF extracts) leaves them out, with their invisible glyphs.
    let (text, offsets) = Self.withoutBidiControls(piece.text)
    for g in piece.glyphs {
      let cluster = g.cluster < 0 ? 0 : g.cluster - piece.range.lowerBound
      if let offsets {
        if g.advance == 0, offsets[cluster] < 0 { continue }
        glyphs.append(Glyph(id: g.id, x: pen + g.xOffset, y: -g.yOffset, cluster: abs(offsets[cluster]) - 1))
      } else {
        glyphs.append(Glyph(id: g.id, x: pen + g.xOffset, y: -g.yOffset, cluster: cluster))
      }
      pen += g.advance
    }
    if !glyphs.isEmpty {
      items.append(
        .glyphs(
          GlyphRun(
            font: piece.font.face, size: a.font.size, horizontalScale: a.horizontalScale,
            verticalScale: a.verticalScale, origin: Point(x: x, y: baseline), glyphs: glyphs,
            text: text, rightToLeft: piece.level & 1 == 1, ink: a.inverse ? .white : .black,
            width: width)))
    }
    let m = piece.font.metrics
    let k = a.font.size * a.verticalScale
    let ink: Ink = a.inverse ? .white : .black
    if a.underline {
      // OpenType's underline position is the top of the line; keep it clear of the baseline.
      let t = max(m.underlineThickness * k, 0.5)
      items.append(
        .rect(
          FilledRect(
            rect: Rect(x: x, y: baseline + max(m.underlineOffset * k, t / 2), width: width, height: t), ink: ink)))
    }
    if a.strikethrough {
      let t = max(m.strikeoutThickness * k, 0.5)
      items.append(
        .rect(
          FilledRect(rect: Rect(x: x, y: baseline - m.strikeoutOffset * k - t / 2, width: width, height: t), ink: ink)))
    }
  }
}
