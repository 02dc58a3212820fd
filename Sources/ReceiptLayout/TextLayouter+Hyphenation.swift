import ReceiptModel

extension TextLayouter {
  /// Prepares the paragraph's hyphenation by its style's `hyphenation`: `none` drops the breaks
  /// after soft hyphens (U+00AD); `manual` ends a line broken there with a hyphen; `auto` also
  /// hyphenates words of five letters or more at their language dictionary's points (words that
  /// already carry a soft hyphen are left as their author marked them). Dictionary points are
  /// looked up only for a word that crosses a line's end (``dictionaryPoints(_:in:)``): most
  /// receipt lines never need one.
  func hyphenate(_ p: inout Paragraph, text: AttributedText) {
    let mode = text.paragraphStyle.hyphenation
    if mode == .none {
      p.breaks.removeAll { $0 > 0 && $0 < p.units.count && p.units[$0 - 1] == 0xAD }
      return
    }
    p.hyphenBreaks = Set(p.breaks.filter { $0 > 0 && $0 < p.units.count && p.units[$0 - 1] == 0xAD })
    if mode == .auto, let language = text.attributes(at: p.offset).language, Hyphenator.isInstalled(language) {
      p.hyphenation = language
    }
  }

  /// The dictionary's hyphenation points of the words in `range` (absolute offsets, on grapheme
  /// boundaries), for a paragraph whose style hyphenates automatically.
  func dictionaryPoints(_ p: Paragraph, in range: Range<Int>) -> [Int] {
    guard let language = p.hyphenation, let hyphenator = Hyphenator.forLanguage(language) else { return [] }
    var points: [Int] = []
    var i = range.lowerBound
    while i < range.upperBound {
      // A word: a run of letters (marks inside it kept with it).
      guard isLetter(p.units[i]) else {
        i += 1
        continue
      }
      var j = i
      while j < range.upperBound, isLetter(p.units[j]) || isMark(p.units[j]) || UTF16.isTrailSurrogate(p.units[j]) {
        j += 1
      }
      if j - i >= 5, !p.units[i..<j].contains(0xAD) {
        points += hyphenator.points(in: p.units[i..<j]).map { $0 + i }
      }
      i = j
    }
    return points.filter { point in
      let g = p.graphemeIndex(after: point - 1)
      return g < p.graphemes.count && p.graphemes[g] == point
    }
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
