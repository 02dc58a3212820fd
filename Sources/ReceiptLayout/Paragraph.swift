import ReceiptModel

/// A run of a paragraph in one font, attribute set, bidi level and script, shaped by HarfBuzz.
struct ShapedItem {
  /// UTF-16 range in the paragraph.
  var range: Range<Int>
  var attributes: TextAttributes
  var font: Font
  var level: UInt8
  var script: Int32
  /// Glyphs in visual order; clusters are paragraph offsets.
  var glyphs: [ShapedGlyph]
  var rightToLeft: Bool { level & 1 == 1 }
  var isTab: Bool

  /// The glyphs whose clusters lie in `clusters`: a contiguous range, found by binary search
  /// (HarfBuzz keeps clusters monotonic: rising left to right, falling right to left). Linear
  /// filtering here made every line cost the whole paragraph (1 MB of text did not finish).
  func glyphRange(_ clusters: Range<Int>) -> Range<Int> {
    func firstIndex(where predicate: (Int) -> Bool) -> Int {
      var lo = 0
      var hi = glyphs.count
      while lo < hi {
        let mid = (lo + hi) / 2
        if predicate(glyphs[mid].cluster) { hi = mid } else { lo = mid + 1 }
      }
      return lo
    }
    if rightToLeft {
      return firstIndex { $0 < clusters.upperBound }..<firstIndex { $0 < clusters.lowerBound }
    }
    return firstIndex { $0 >= clusters.lowerBound }..<firstIndex { $0 >= clusters.upperBound }
  }
}

/// One paragraph (text between `\n`), itemized and shaped once, then broken into lines.
struct Paragraph {
  /// The paragraph's UTF-16 code units.
  let units: [UInt16]
  /// The paragraph's offset in the whole text.
  let offset: Int
  /// The paragraph as a string (UTF-8), for cheap substrings of run text.
  var string: Substring = ""
  var items: [ShapedItem] = []
  /// Width of the cluster starting at each offset (0 inside clusters and for tabs).
  var advances: [Double] = []
  /// Prefix sums of `advances` (count + 1 entries).
  var prefix: [Double] = []
  var paragraphLevel: UInt8 = 0
  /// Grapheme boundaries after 0, ending with `units.count`.
  var graphemes: [Int] = []
  /// Line break opportunities after 0, ending with `units.count` (soft hyphens included).
  var breaks: [Int] = []
  /// The break opportunities where a line ends with a hyphen: after a soft hyphen.
  var hyphenBreaks: Set<Int> = []
  /// The language of a paragraph that hyphenates automatically and has a dictionary installed
  /// (its points are found per line, for the word that crosses the line's end; the dictionary
  /// is loaded at the first such word, so a receipt whose lines all fit never loads it).
  var hyphenation: String?
  var hasTabs = false

  var rightToLeft: Bool { paragraphLevel & 1 == 1 }

  /// The sum of cluster advances over a range of offsets.
  func width(_ range: Range<Int>) -> Double { prefix[range.upperBound] - prefix[range.lowerBound] }

  /// `end` moved back over trailing spaces (they hang past the line end and are not drawn).
  func trimmingTrailingSpaces(_ start: Int, _ end: Int) -> Int {
    var e = end
    while e > start, Paragraph.isSpace(units[e - 1]) { e -= 1 }
    return e
  }

  static func isSpace(_ unit: UInt16) -> Bool { unit == 0x20 || unit == 0x3000 }

  /// No-break spaces and joiners (U+00A0, U+2007, U+202F, U+2060, U+FEFF): what they stand
  /// beside must not be parted.
  static func isGlue(_ unit: UInt16) -> Bool { [0xA0, 0x2007, 0x202F, 0x2060, 0xFEFF].contains(unit) }

  /// Whether a break at `offset` would part a no-break space from its neighbour.
  func gluesAround(_ offset: Int) -> Bool {
    (offset > 0 && Self.isGlue(units[offset - 1])) || (offset < units.count && Self.isGlue(units[offset]))
  }

  /// The source text of a UTF-16 range, in logical order.
  func text(_ range: Range<Int>) -> String {
    let utf16 = string.utf16
    let start = utf16.index(utf16.startIndex, offsetBy: range.lowerBound)
    let end = utf16.index(start, offsetBy: range.count)
    return String(string[start..<end])
  }

  /// The index of the first grapheme boundary after `offset` (binary search: a paragraph may be
  /// long); `graphemes.count` when there is none.
  func graphemeIndex(after offset: Int) -> Int {
    var lo = 0
    var hi = graphemes.count
    while lo < hi {
      let mid = (lo + hi) / 2
      if graphemes[mid] <= offset { lo = mid + 1 } else { hi = mid }
    }
    return lo
  }

  /// The item index containing an offset.
  func itemIndex(at offset: Int) -> Int {
    var lo = 0
    var hi = items.count - 1
    while lo < hi {
      let mid = (lo + hi + 1) / 2
      if items[mid].range.lowerBound <= offset { lo = mid } else { hi = mid - 1 }
    }
    return lo
  }
}

/// Decodes UTF-16 into (offset, scalar) pairs.
func scalars(of units: ArraySlice<UInt16>) -> [(offset: Int, length: Int, value: UInt32)] {
  var result: [(offset: Int, length: Int, value: UInt32)] = []
  result.reserveCapacity(units.count)
  var i = units.startIndex
  while i < units.endIndex {
    let u = units[i]
    if UTF16.isLeadSurrogate(u), i + 1 < units.endIndex, UTF16.isTrailSurrogate(units[i + 1]) {
      let value = 0x10000 + ((UInt32(u) - 0xD800) << 10) + (UInt32(units[i + 1]) - 0xDC00)
      result.append((i - units.startIndex, 2, value))
      i += 2
    } else {
      result.append((i - units.startIndex, 1, UInt32(u)))
      i += 1
    }
  }
  return result
}
