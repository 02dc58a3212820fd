internal import CICU

/// Throws a ``LayoutError`` when an ICU status is a failure.
func checkICU(_ status: Int32, _ function: String) throws {
  if status > 0 {
    throw LayoutError.icu(function: function, status: String(cString: cicu_errorName(status)))
  }
}

/// An ICU break iterator, opened once per kind and locale (opening one costs far more than
/// iterating) and pointed at new text with `ubrk_setText`. Closed on deinit.
final class BreakIterator {
  enum Kind { case line, character }
  private let iterator: OpaquePointer

  init(_ kind: Kind, locale: String?) throws {
    var status: Int32 = 0
    let type = kind == .line ? Int32(CICU_UBRK_LINE) : Int32(CICU_UBRK_CHARACTER)
    guard let opened = cicu_ubrk_open(type, locale ?? "", nil, 0, &status), status <= 0 else {
      try checkICU(status, "ubrk_open")
      throw LayoutError.icu(function: "ubrk_open", status: "no iterator")
    }
    iterator = opened
  }

  deinit { cicu_ubrk_close(iterator) }

  /// All boundaries of `source` after 0, ending with its length. ICU reads the caller's buffer
  /// while iterating; no copy is kept.
  func boundaries(of source: ArraySlice<UInt16>) throws -> [Int] {
    try source.withUnsafeBufferPointer { buffer in
      var status: Int32 = 0
      cicu_ubrk_setText(iterator, buffer.baseAddress, Int32(buffer.count), &status)
      try checkICU(status, "ubrk_setText")
      defer { cicu_ubrk_setText(iterator, nil, 0, &status) }
      var result: [Int] = []
      _ = cicu_ubrk_first(iterator)
      while true {
        let next = cicu_ubrk_next(iterator)
        if next == CICU_UBRK_DONE { break }
        result.append(Int(next))
      }
      return result
    }
  }
}

/// Unicode bidirectional levels of one paragraph (ICU ubidi).
enum Bidi {
  /// Returns per-UTF-16-unit embedding levels and the paragraph level.
  static func levels(of text: ArraySlice<UInt16>, base: Int) throws -> (levels: [UInt8], paragraphLevel: UInt8) {
    guard let bidi = cicu_ubidi_open() else { throw LayoutError.icu(function: "ubidi_open", status: "out of memory") }
    defer { cicu_ubidi_close(bidi) }
    return try text.withUnsafeBufferPointer { buffer in
      var status: Int32 = 0
      cicu_ubidi_setPara(bidi, buffer.baseAddress, Int32(buffer.count), UInt8(base), &status)
      try checkICU(status, "ubidi_setPara")
      let levels = cicu_ubidi_getLevels(bidi, &status)
      try checkICU(status, "ubidi_getLevels")
      let result = levels.map { Array(UnsafeBufferPointer(start: $0, count: buffer.count)) } ?? []
      return (result, cicu_ubidi_getParaLevel(bidi))
    }
  }

  /// The visual order of items with the given levels (UAX #9 rule L2).
  static func visualOrder(levels: [UInt8]) -> [Int] {
    guard levels.contains(where: { $0 > 0 }) else {
      return Array(levels.indices)
    }
    var map = [Int32](repeating: 0, count: levels.count)
    levels.withUnsafeBufferPointer { cicu_ubidi_reorderVisual($0.baseAddress, Int32(levels.count), &map) }
    return map.map(Int.init)
  }

  /// UBIDI_DEFAULT_LTR: paragraph level from the first strong character, else left-to-right.
  static let autoLevel = 0xFE
}

/// Unicode character properties from ICU.
enum UnicodeProperties {
  /// The ISO 15924 script tag of a scalar (`Latn`, `Arab`, `Zyyy` for common, `Zinh` inherited).
  static func scriptCode(_ scalar: UInt32) -> Int32 {
    if scalar < 0x80 {  // ASCII: letters are Latin (25), everything else Common
      let isLetter = (0x41...0x5A).contains(scalar) || (0x61...0x7A).contains(scalar)
      return isLetter ? 25 : commonScript
    }
    var status: Int32 = 0
    return cicu_uscript_getScript(Int32(bitPattern: scalar), &status)
  }
  static let commonScript = Int32(CICU_USCRIPT_COMMON)
  static let inheritedScript = Int32(CICU_USCRIPT_INHERITED)

  /// Emoji that default to emoji presentation (🍕), or Extended_Pictographic with VS16.
  static func isEmojiPresentation(_ scalar: UInt32) -> Bool {
    cicu_hasBinaryProperty(Int32(bitPattern: scalar), Int32(CICU_UCHAR_EMOJI_PRESENTATION)) != 0
  }
  static func isExtendedPictographic(_ scalar: UInt32) -> Bool {
    cicu_hasBinaryProperty(Int32(bitPattern: scalar), Int32(CICU_UCHAR_EXTENDED_PICTOGRAPHIC)) != 0
  }
  /// Default-ignorable code points (ZWJ, variation selectors…) that need no glyph of their own.
  static func isDefaultIgnorable(_ scalar: UInt32) -> Bool {
    cicu_hasBinaryProperty(Int32(bitPattern: scalar), Int32(CICU_UCHAR_DEFAULT_IGNORABLE_CODE_POINT)) != 0
  }
  /// Whether a scalar is a strong right-to-left character (R, AL).
  static func isStrongRTL(_ scalar: UInt32) -> Bool {
    let d = cicu_charDirection(Int32(bitPattern: scalar))
    return d == CICU_U_RIGHT_TO_LEFT || d == CICU_U_RIGHT_TO_LEFT_ARABIC
  }
}

extension UnicodeProperties {
  /// The ISO 15924 short name of an ICU script code (`Latn`), for HarfBuzz.
  static func scriptName(_ code: Int32) -> String? {
    guard let name = cicu_uscript_getShortName(code) else { return nil }
    return String(cString: name)
  }
}
