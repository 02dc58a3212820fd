import ReceiptModel

extension TextLayouter {
  /// Adds the paragraph's hyphenation opportunities to its breaks, by its style's `hyphenation`:
  /// `none` drops the breaks after soft hyphens (U+00AD); `manual` ends a line broken there with a
  /// hyphen; `auto` also hyphenates words of five letters or more at their language dictionary's
  /// points (words that already carry a soft hyphen are left as their author marked them).
  func hyphenate(_ p: inout Paragraph, text: AttributedText) {
    let mode = text.paragraphStyle.hyphenation
    let afterSoftHyphen = p.breaks.filter { $0 > 0 && p.units[$0 - 1] == 0xAD }
    if mode == .none {
      p.breaks.removeAll { $0 > 0 && $0 < p.units.count && p.units[$0 - 1] == 0xAD }
      return
    }
    p.hyphenBreaks = Set(afterSoftHyphen.filter { $0 < p.units.count })
    guard mode == .auto else { return }
    var points: [Int] = []
    var start = 0
    for end in p.breaks {
      defer { start = end }
      var i = start
      while i < end {
        // A word: a run of letters (marks inside it kept with it).
        guard isLetter(p.units[i]) else {
          i += 1
          continue
        }
        var j = i
        while j < end, isLetter(p.units[j]) || isMark(p.units[j]) || UTF16.isTrailSurrogate(p.units[j]) { j += 1 }
        if j - i >= 5, !p.units[i..<j].contains(0xAD),
          let hyphenator = Hyphenator.forLanguage(text.attributes(at: p.offset + i).language)
        {
          points += hyphenator.points(in: p.units[i..<j]).map { $0 + i }
        }
        i = j
      }
    }
    guard !points.isEmpty else { return }
    let graphemes = Set(p.graphemes)
    let usable = points.filter { graphemes.contains($0) }
    p.hyphenBreaks.formUnion(usable)
    p.breaks = Array(Set(p.breaks).union(usable)).sorted()
  }

  private func isLetter(_ unit: UInt16) -> Bool {
    if unit < 0x80 { return (unit | 0x20) >= 0x61 && (unit | 0x20) <= 0x7A }
    if UTF16.isLeadSurrogate(unit) || UTF16.isTrailSurrogate(unit) { return false }
    return Unicode.Scalar(unit)?.properties.isAlphabetic ?? false
  }

  private func isMark(_ unit: UInt16) -> Bool {
    guard unit >= 0x300, let scalar = Unicode.Scalar(unit) else { return false }
    let category = scalar.properties.generalCategory
    return category == .nonspacingMark || category == .spacingMark || category == .enclosingMark
  }

  /// The width of the hyphen that ends a line broken at `offset`, in the font of the text before.
  func hyphenWidth(_ p: Paragraph, at offset: Int) -> Double {
    let item = p.items[p.itemIndex(at: max(0, offset - 1))]
    return (item.font.advance(of: 0x2D) ?? 0.33) * item.attributes.font.size * item.attributes.horizontalScale
  }
}
