import Foundation

/// Strings: escapes, surrogate pairs and UTF-8 validation (RFC 8259 §7–8).
extension JSONParser {
  /// A string starting at the opening quote: escapes decoded, UTF-8 validated.
  mutating func string() throws -> String {
    let start = i
    i += 1
    var result: [UInt8] = []
    var runStart = i
    while true {
      guard i < bytes.count else { throw error(at: start, "this string is never closed; add \"") }
      let b = bytes[i]
      if b == UInt8(ascii: "\"") {
        // Without escapes the string is the bytes as they are (validated above): one copy.
        if runStart == start + 1 {
          i += 1
          return String(decoding: UnsafeBufferPointer(rebasing: bytes[runStart..<(i - 1)]), as: UTF8.self)
        }
        result.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i]))
        i += 1
        break
      }
      if b == UInt8(ascii: "\\") {
        result.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i]))
        try escape(into: &result)
        runStart = i
        continue
      }
      if b < 0x20 {
        throw error(at: i, "a control character (U+\(hex(b))) must be escaped inside a string (e.g. \\n, \\t)")
      }
      if b < 0x80 {
        i += 1
      } else {
        try validateUTF8()
      }
    }
    return String(decoding: result, as: UTF8.self)
  }

  mutating func escape(into result: inout [UInt8]) throws {
    let at = i
    guard i + 1 < bytes.count else { throw error(at: at, "the string ends inside an escape") }
    let c = bytes[i + 1]
    i += 2
    switch c {
    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): result.append(c)
    case UInt8(ascii: "b"): result.append(0x08)
    case UInt8(ascii: "f"): result.append(0x0C)
    case UInt8(ascii: "n"): result.append(0x0A)
    case UInt8(ascii: "r"): result.append(0x0D)
    case UInt8(ascii: "t"): result.append(0x09)
    case UInt8(ascii: "u"):
      var scalar = try hex4(at: at)
      if (0xD800...0xDBFF).contains(scalar) {
        guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
          throw error(
            at: at, "\\u\(hex16(scalar)) is half of a surrogate pair; the low half (\\uDC00–\\uDFFF) must follow")
        }
        i += 2
        let low = try hex4(at: at)
        guard (0xDC00...0xDFFF).contains(low) else {
          throw error(at: at, "\\u\(hex16(scalar)) must be followed by a low surrogate (\\uDC00–\\uDFFF)")
        }
        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
      } else if (0xDC00...0xDFFF).contains(scalar) {
        throw error(at: at, "\\u\(hex16(scalar)) is a lone low surrogate, not a character")
      }
      result.append(contentsOf: Array(String(Character(Unicode.Scalar(scalar)!)).utf8))
    default:
      throw error(
        at: at, "\\\(describeByte(c)) is not a JSON escape (use \\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX)")
    }
  }

  mutating func hex4(at escapeStart: Int) throws -> UInt32 {
    guard i + 4 <= bytes.count else { throw error(at: escapeStart, "\\u needs four hex digits") }
    var value: UInt32 = 0
    for k in 0..<4 {
      let b = bytes[i + k]
      let digit: UInt32
      switch b {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(b - UInt8(ascii: "0"))
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(b - UInt8(ascii: "a") + 10)
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(b - UInt8(ascii: "A") + 10)
      default: throw error(at: escapeStart, "\\u needs four hex digits")
      }
      value = value << 4 | digit
    }
    i += 4
    return value
  }

  /// Checks one multi-byte UTF-8 sequence at `i` (RFC 3629: no overlongs, no surrogates, at
  /// most U+10FFFF) and moves past it.
  mutating func validateUTF8() throws {
    let b = bytes[i]
    let (count, low, high): (Int, UInt8, UInt8)
    switch b {
    case 0xC2...0xDF: (count, low, high) = (1, 0x80, 0xBF)
    case 0xE0: (count, low, high) = (2, 0xA0, 0xBF)
    case 0xE1...0xEC, 0xEE...0xEF: (count, low, high) = (2, 0x80, 0xBF)
    case 0xED: (count, low, high) = (2, 0x80, 0x9F)
    case 0xF0: (count, low, high) = (3, 0x90, 0xBF)
    case 0xF1...0xF3: (count, low, high) = (3, 0x80, 0xBF)
    case 0xF4: (count, low, high) = (3, 0x80, 0x8F)
    default: throw error(at: i, "invalid UTF-8 (byte 0x\(hex(b))); save the file as UTF-8")
    }
    guard i + count < bytes.count, (low...high).contains(bytes[i + 1]),
      (1..<count + 1).dropFirst().allSatisfy({ (0x80...0xBF).contains(bytes[i + $0]) })
    else { throw error(at: i, "invalid UTF-8 (byte 0x\(hex(b))); save the file as UTF-8") }
    i += count + 1
  }
}
