import Foundation
import ReceiptModel

/// A line of a paragraph: a UTF-16 range, and whether it ends with an ellipsis or a hyphen.
struct LineSpan {
  var start: Int
  var end: Int
  var truncated = false
  var hyphenated = false
}

extension TextLayouter {
  /// Most UTF-16 units between two break opportunities that are still looked up in a
  /// hyphenation dictionary (libhyphen's words are at most 60 characters; see ``Hyphenator``).
  static let maxHyphenatedUnits = 256

  /// Greedy line breaking at the paragraph's break opportunities (UAX #14 in word mode), with
  /// trailing spaces hanging; a word wider than the line wraps between graphemes. At most
  /// `budget` lines (0 = unlimited); a cut paragraph's last line is truncated with an ellipsis.
  /// The first line is `firstAvailable` wide (its own indent), the others `available`.
  func breakLines(
    _ p: Paragraph, available lineAvailable: Double, firstAvailable: Double, style: ParagraphStyle, budget: Int
  ) -> [LineSpan] {
    let n = p.units.count
    guard n > 0 else { return [LineSpan(start: 0, end: 0)] }
    let budget = style.lineBreakMode == .truncate ? 1 : budget
    var lines: [LineSpan] = []
    var start = 0
    var b = 0
    while start < n {
      let available = lines.isEmpty ? firstAvailable : lineAvailable
      let limit = available + 1e-9
      if budget > 0, lines.count == budget - 1, lineWidth(p, start, n, available: available, style: style) > limit {
        lines.append(
          LineSpan(start: start, end: truncationEnd(p, start, available: available, style: style), truncated: true))
        break
      }
      while b < p.breaks.count, p.breaks[b] <= start { b += 1 }
      var end: Int?
      var hyphenated = false
      var k = b
      var overflow: Int?  // the first break that does not fit
      while k < p.breaks.count {
        let candidate = p.breaks[k]
        let hyphen = p.hyphenBreaks.contains(candidate)
        var w = lineWidth(p, start, candidate, available: available, style: style)
        if hyphen { w += hyphenWidth(p, at: candidate) }
        k += 1
        if w <= limit {
          (end, hyphenated) = (candidate, hyphen)
        } else if !hyphen {
          overflow = candidate
          break  // widths grow with the end; a hyphen's own width may not fit where a later break does
        }
      }
      if let overflow, p.hyphenation != nil, overflow - (end ?? start) <= Self.maxHyphenatedUnits {
        // The word that crosses the line's end: its last dictionary point that fits, with a hyphen.
        // (Longer runs without a break are no words to hyphenate: they wrap between graphemes,
        // and looking into them on every line made breaking quadratic in their length.)
        let word = (end ?? start)..<overflow
        for point in dictionaryPoints(p, in: word).reversed() where point > start {
          if lineWidth(p, start, point, available: available, style: style) + hyphenWidth(p, at: point) <= limit {
            (end, hyphenated) = (point, true)
            break
          }
        }
      }
      if end == nil {
        // The first word is wider than the line: break between graphemes, at least one — and
        // not beside a no-break space where another point fits ("«&#160;CODE" stays together).
        var g = p.graphemeIndex(after: start)
        end = p.graphemes[g]
        var unglued = p.gluesAround(p.graphemes[g]) ? nil : end
        g += 1
        while g < p.graphemes.count, lineWidth(p, start, p.graphemes[g], available: available, style: style) <= limit {
          end = p.graphemes[g]
          if !p.gluesAround(p.graphemes[g]) { unglued = end }
          g += 1
        }
        if let unglued { end = unglued }
      }
      lines.append(LineSpan(start: start, end: end!, hyphenated: hyphenated))
      start = end!
    }
    return lines
  }

  /// Width of a line from `start` to `end` (trailing spaces excluded), with tabs resolved.
  func lineWidth(_ p: Paragraph, _ start: Int, _ end: Int, available: Double, style: ParagraphStyle) -> Double {
    let end = p.trimmingTrailingSpaces(start, end)
    guard p.hasTabs else { return p.width(start..<end) }
    let segments = tabSegments(p, start, end)
    let widths = segments.map { p.width($0) }
    let placements = resolveTabs(
      widths: widths, decimals: segments.map { decimalOffset(p, $0) }, gaps: tabGaps(p, segments, style: style),
      style: style, available: available)
    return placements[placements.count - 1].start + widths[widths.count - 1]
  }

  /// Whether a line starting at `start` holds the text after a tab that ended the line before
  /// (text that did not fit beside its stop moved down): the line is placed as if it began with
  /// that tab, so the text still sits at its stop.
  func continuesTab(_ p: Paragraph, _ start: Int) -> Bool {
    guard p.hasTabs else { return false }
    var i = start
    while i > 0, Paragraph.isSpace(p.units[i - 1]) { i -= 1 }
    return i > 0 && p.units[i - 1] == 0x09
  }

  /// The least gap before each segment after a tab: the style's, else one space of the tab's font
  /// (the first entry, before which there is no tab, is 0).
  func tabGaps(_ p: Paragraph, _ segments: [Range<Int>], style: ParagraphStyle) -> [Double] {
    segments.indices.map { i in
      guard i > 0 else { return 0 }
      if let gap = style.tabGap { return gap }
      let tab = max(0, segments[i].lowerBound - 1)
      let item = p.items[p.itemIndex(at: tab)]
      return (item.font.advance(of: 0x20) ?? 0.25) * item.attributes.font.size * item.attributes.horizontalScale
    }
  }

  /// Where a truncated line's text ends so that it and an ellipsis fit.
  private func truncationEnd(_ p: Paragraph, _ start: Int, available: Double, style: ParagraphStyle) -> Int {
    let item = p.items[p.itemIndex(at: start)]
    let ellipsis =
      (item.font.advance(of: 0x2026) ?? 3 * (item.font.advance(of: 0x2E) ?? 0.3)) * item.attributes.font.size
      * item.attributes.horizontalScale
    var end = start
    for g in p.graphemes where g > start {
      if lineWidth(p, start, g, available: available, style: style) + ellipsis > available + 1e-9 { break }
      end = g
    }
    return end
  }

  /// The ranges between tabs (the tabs themselves excluded), in logical order; a line that
  /// continues a tab starts with an empty segment.
  func tabSegments(_ p: Paragraph, _ start: Int, _ end: Int) -> [Range<Int>] {
    var segments: [Range<Int>] = continuesTab(p, start) ? [start..<start] : []
    var s = start
    for i in start..<end where p.units[i] == 0x09 {
      segments.append(s..<i)
      s = i + 1
    }
    segments.append(s..<max(s, end))
    return segments
  }

  /// Distance from a segment's start to its decimal separator (for decimal tab stops).
  func decimalOffset(_ p: Paragraph, _ range: Range<Int>) -> Double? {
    guard let i = range.last(where: { p.units[$0] == 0x2E }) ?? range.last(where: { p.units[$0] == 0x2C }) else {
      return nil
    }
    return p.width(range.lowerBound..<i)
  }

  /// Where a tab segment starts, in leading-edge coordinates, and the explicit stop that put it
  /// there (nil for the first segment and for implicit stops).
  struct TabPlacement {
    var start: Double
    var stop: TabStop?
  }

  /// Places every tab segment. The first starts at 0; each later one goes to the first stop past
  /// the text before it, aligned by the stop's kind, else to the next multiple of the default
  /// interval. Negative stop locations count back from the trailing edge. Text never comes closer
  /// than its gap to the text before it (it is pushed past its stop instead, and the line breaker
  /// then moves it down).
  func resolveTabs(
    widths: [Double], decimals: [Double?], gaps: [Double], style: ParagraphStyle, available: Double
  ) -> [TabPlacement] {
    var placements = [TabPlacement(start: 0, stop: nil)]
    guard widths.count > 1 else { return placements }
    let stops = style.tabStops.map { stop -> TabStop in
      var s = stop
      if s.location < 0 { s.location += available }
      return s
    }.sorted { $0.location < $1.location }
    var x = widths[0]
    for i in 1..<widths.count {
      let w = widths[i]
      var start: Double
      let least = w > 0 && x > 0 ? x + gaps[i] : x
      let stop = stops.first { $0.location > x + 1e-9 }
      if let stop {
        switch stop.alignment {
        case .left: start = stop.location
        case .right: start = stop.location - w
        case .center: start = stop.location - w / 2
        case .decimal: start = stop.location - (decimals[i] ?? w)
        }
        start = max(least, start)
      } else {
        let interval = max(style.defaultTabInterval, 1)
        start = (floor(x / interval) + 1) * interval
        if start < least { start = (least / interval).rounded(.up) * interval }
      }
      placements.append(TabPlacement(start: start, stop: stop))
      x = start + w
    }
    return placements
  }
}
