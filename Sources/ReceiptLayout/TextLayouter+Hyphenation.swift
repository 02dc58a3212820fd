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
    guard !isCode(p, around: range) else { return [] }
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

  /// Whether the token around `range` (the text between white space) is a code, not a word:
  /// it holds a digit, `@`, `/` or `_`, or a capital after a small letter (`p4TrW8cLm-QeB7`,
  /// `SKU_1042`, `anna@example.com`, `iPhone`). A hyphen in one would print a character the
  /// code does not have, as word processors know; such tokens wrap between graphemes instead.
  /// A token longer than ``maxHyphenatedUnits`` on either side is a code too.
  func isCode(_ p: Paragraph, around range: Range<Int>) -> Bool {
    func isSpace(_ u: UInt16) -> Bool { u == 0x20 || u == 0x09 || u == 0xA0 || u == 0x0A || u == 0x3000 }
    var start = range.lowerBound
    while start > 0, !isSpace(p.units[start - 1]) {
      start -= 1
      if range.lowerBound - start > Self.maxHyphenatedUnits { return true }
    }
    var end = range.upperBound
    while end < p.units.count, !isSpace(p.units[end]) {
      end += 1
      if end - range.upperBound > Self.maxHyphenatedUnits { return true }
    }
    var previousLower = false
    for unit in p.units[start..<end] {
      switch unit {
      case 0x30...0x39, 0x40, 0x2F, 0x5F: return true
      default: break
      }
      guard !UTF16.isLeadSurrogate(unit), !UTF16.isTrailSurrogate(unit), let scalar = Unicode.Scalar(unit) else {
        previousLower = false
        continue
      }
      let properties = scalar.properties
      if properties.numericType == .decimal { return true }
      if properties.isUppercase, previousLower { return true }
      previousLower = properties.isLowercase
    }
    return false
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
