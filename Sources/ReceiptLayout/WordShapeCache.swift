import ReceiptModel

/// Shaped words, reused: receipts repeat their words ("x", "Latte", "EUR", prices, spaces) on
/// every line and in every job a daemon prints, and a dictionary lookup costs a fraction of a
/// HarfBuzz call. Used only for fonts that shape the same word by word as in one piece
/// (``Font/wordShapingIsExact(face:font:scalars:)``), on the simple path (left to right,
/// ``TextLayouter/simpleRanges``), so what comes out is exactly what shaping the whole item gives (`WordShapingTests`).
///
/// Bounded: when full it is emptied (a receipt's vocabulary refills it at once). Not
/// thread-safe: one per ``TextLayouter``, used under the engine's lock.
final class WordShapeCache {
  /// What besides its text decides how a word shapes: one lookup per item, not per word.
  struct Style: Hashable {
    /// Held, not just identified: a font freed and another allocated at its address must not hit.
    var font: FontReference
    var size: Double
    var horizontalScale: Double
    var verticalScale: Double
    var language: String?
    var ligatures: Bool
    var script: Int32
  }

  /// A font compared and hashed by identity.
  struct FontReference: Hashable {
    let font: Font
    static func == (a: Self, b: Self) -> Bool { a.font === b.font }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(font)) }
  }

  /// A word's UTF-16 units: up to 12 packed into three integers (no allocation to look one up),
  /// longer ones in an array.
  struct Word: Hashable {
    var a: UInt64 = 0
    var b: UInt64 = 0
    var c: UInt64 = 0
    var count: Int
    var long: [UInt16]? = nil

    init(_ units: ArraySlice<UInt16>) {
      count = units.count
      guard count <= 12 else {
        long = Array(units)
        return
      }
      var i: UInt64 = 0
      for unit in units {
        let bits = UInt64(unit) << ((i & 3) * 16)
        switch i >> 2 {
        case 0: a |= bits
        case 1: b |= bits
        default: c |= bits
        }
        i += 1
      }
    }
  }

  /// Shaped words of one style.
  final class Words {
    var glyphs: [Word: [ShapedGlyph]] = [:]
  }

  /// Entries kept before the cache is emptied.
  let capacity: Int
  private var styles: [Style: Words] = [:]
  private(set) var count = 0
  private(set) var hits = 0
  private(set) var misses = 0

  init(capacity: Int = 8192) {
    self.capacity = capacity
  }

  /// The words of a style, to look several up.
  func words(of style: Style) -> Words {
    if let words = styles[style] { return words }
    let words = Words()
    styles[style] = words
    return words
  }

  /// A word's glyphs (clusters relative to the word's start), shaped by `shape` on a miss.
  func glyphs(for word: Word, in words: Words, shape: () -> [ShapedGlyph]) -> [ShapedGlyph] {
    if let glyphs = words.glyphs[word] {
      hits &+= 1
      return glyphs
    }
    misses &+= 1
    let glyphs = shape()
    if count >= capacity {
      for words in styles.values { words.glyphs.removeAll() }
      count = 0
    }
    words.glyphs[word] = glyphs
    count += 1
    return glyphs
  }
}

extension TextLayouter {
  /// Shapes an item of a simple paragraph (left to right, ``TextLayouter/simpleRanges``) one word at a time,
  /// words and runs of spaces apart, each from the cache; nil when the font does not shape words
  /// exactly, so the caller shapes the item whole.
  func shapeByWords(
    _ p: Paragraph, _ range: Range<Int>, _ font: Font, _ attributes: TextAttributes, _ script: Int32
  ) -> [ShapedGlyph]? {
    guard wordShaping, fonts.shapesWordsExactly(font) else { return nil }
    return shapeWordByWord(p, range, font, attributes, script)
  }

  /// ``shapeByWords(_:_:_:_:_:)`` without asking whether the font allows it (tests show what it
  /// would get wrong).
  func shapeWordByWord(
    _ p: Paragraph, _ range: Range<Int>, _ font: Font, _ attributes: TextAttributes, _ script: Int32
  ) -> [ShapedGlyph] {
    var glyphs: [ShapedGlyph] = []
    glyphs.reserveCapacity(range.count)
    let style = WordShapeCache.Style(
      font: .init(font: font), size: attributes.font.size, horizontalScale: attributes.horizontalScale,
      verticalScale: attributes.verticalScale, language: attributes.language,
      ligatures: attributes.letterSpacing == 0, script: script)
    let known = words.words(of: style)
    var start = range.lowerBound
    while start < range.upperBound {
      let space = p.units[start] == 0x20
      var end = start + 1
      while end < range.upperBound, (p.units[end] == 0x20) == space { end += 1 }
      let units = p.units[start..<end]
      let word = words.glyphs(for: WordShapeCache.Word(units), in: known) {
        Array(units).withUnsafeBufferPointer { buffer in
          shaper.shape(
            buffer, range: 0..<buffer.count, font: font, size: style.size, horizontalScale: style.horizontalScale,
            verticalScale: style.verticalScale, rightToLeft: false, script: script, language: style.language,
            ligatures: style.ligatures)
        }
      }
      for var glyph in word {
        glyph.cluster += start
        glyphs.append(glyph)
      }
      start = end
    }
    return glyphs
  }
}
