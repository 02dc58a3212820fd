public import Foundation

/// A strict RFC 8259 JSON parser for order data and request bodies: UTF-8 only, no trailing
/// commas, no comments, no duplicate object keys (RFC 8259 leaves their meaning open; two
/// parsers that pick different ones would print something other than what was checked), numbers
/// kept exactly (``JSONNumber``), nesting at most ``maxDepth`` levels. Errors name
/// line:column and what to do.
///
/// Foundation's JSONSerialization accepts duplicate keys (keeping the last), turns numbers into
/// binary floating point, and behaves differently linked statically and dynamically; this
/// parser is the one place order JSON is read.
public struct JSONParser {
  /// Deepest nesting of arrays and objects.
  public static let maxDepth = 256

  private let bytes: UnsafeBufferPointer<UInt8>
  private let name: String
  private var i = 0
  private var depth = 0
  /// Byte ranges of the top-level object's member values, when asked for.
  private(set) var topLevelRanges: [String: Range<Int>] = [:]

  private init(bytes: UnsafeBufferPointer<UInt8>, name: String) {
    self.bytes = bytes
    self.name = name
  }

  /// Parses a whole JSON text. `name` is the file name used in errors.
  public static func parse(_ data: Data, name: String = "order") throws -> JSONValue {
    try parseDocument(data, name: name).value
  }

  /// Parses a JSON text that must be an object, and returns it with the byte range of each
  /// top-level member's value in `data` (the daemon stores the order exactly as it was checked).
  public static func parseObject(_ data: Data, name: String = "body") throws -> (
    members: [String: JSONValue], ranges: [String: Range<Int>]
  ) {
    let (value, ranges) = try parseDocument(data, name: name)
    guard case .object(let members) = value else {
      throw TemplateError(file: name, line: 1, column: 1, message: "expected a JSON object ({…}), not \(value.kind)")
    }
    return (members, ranges)
  }

  private static func parseDocument(_ data: Data, name: String) throws -> (
    value: JSONValue, ranges: [String: Range<Int>]
  ) {
    try data.withUnsafeBytes { raw in
      var parser = JSONParser(bytes: raw.bindMemory(to: UInt8.self), name: name)
      if parser.bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
        throw parser.error(
          at: 0, "a byte order mark is not allowed in JSON (RFC 8259); save the file as UTF-8 without BOM")
      }
      parser.skipSpace()
      guard parser.i < parser.bytes.count else { throw parser.error(at: parser.i, "the JSON text is empty") }
      let value = try parser.value(topLevel: true)
      parser.skipSpace()
      if parser.i < parser.bytes.count {
        throw parser.error(at: parser.i, "unexpected \(parser.describe(parser.i)) after the JSON value; remove it")
      }
      return (value, parser.topLevelRanges)
    }
  }

  // MARK: - Grammar

  private mutating func value(topLevel: Bool = false) throws -> JSONValue {
    guard i < bytes.count else { throw error(at: i, "the JSON text ends where a value was expected") }
    switch bytes[i] {
    case UInt8(ascii: "{"): return try object(topLevel: topLevel)
    case UInt8(ascii: "["): return try array()
    case UInt8(ascii: "\""): return .string(try string())
    case UInt8(ascii: "t"): return try literal("true", .bool(true))
    case UInt8(ascii: "f"): return try literal("false", .bool(false))
    case UInt8(ascii: "n"): return try literal("null", .null)
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
    default:
      throw error(at: i, "expected a value (object, array, string, number, true, false or null), found \(describe(i))")
    }
  }

  private mutating func object(topLevel: Bool) throws -> JSONValue {
    let start = i
    try enter()
    i += 1
    var members: [String: JSONValue] = [:]
    var keyOffsets: [String: Int] = [:]
    skipSpace()
    if i < bytes.count, bytes[i] == UInt8(ascii: "}") {
      i += 1
      depth -= 1
      return .object(members)
    }
    while true {
      skipSpace()
      guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else {
        if i < bytes.count, bytes[i] == UInt8(ascii: "}") {
          throw error(at: i, "a trailing comma before } is not allowed in JSON; remove the comma")
        }
        throw error(at: i, "expected a member name in double quotes, found \(describe(i))")
      }
      let keyOffset = i
      let key = try string()
      if let first = keyOffsets[key] {
        let (line, column) = position(of: first)
        throw error(
          at: keyOffset, "duplicate key \"\(key)\" (first at line \(line), column \(column)); keep only one")
      }
      keyOffsets[key] = keyOffset
      skipSpace()
      guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else {
        throw error(at: i, "expected ':' after the member name \"\(key)\", found \(describe(i))")
      }
      i += 1
      skipSpace()
      let valueStart = i
      members[key] = try value()
      if topLevel { topLevelRanges[key] = valueStart..<i }
      skipSpace()
      guard i < bytes.count else { throw error(at: start, "this object is never closed; add }") }
      if bytes[i] == UInt8(ascii: ",") {
        i += 1
        continue
      }
      guard bytes[i] == UInt8(ascii: "}") else {
        throw error(at: i, "expected ',' or '}' after a member, found \(describe(i))")
      }
      i += 1
      depth -= 1
      return .object(members)
    }
  }

  private mutating func array() throws -> JSONValue {
    let start = i
    try enter()
    i += 1
    var elements: [JSONValue] = []
    skipSpace()
    if i < bytes.count, bytes[i] == UInt8(ascii: "]") {
      i += 1
      depth -= 1
      return .array(elements)
    }
    while true {
      skipSpace()
      if i < bytes.count, bytes[i] == UInt8(ascii: "]") {
        throw error(at: i, "a trailing comma before ] is not allowed in JSON; remove the comma")
      }
      elements.append(try value())
      skipSpace()
      guard i < bytes.count else { throw error(at: start, "this array is never closed; add ]") }
      if bytes[i] == UInt8(ascii: ",") {
        i += 1
        continue
      }
      guard bytes[i] == UInt8(ascii: "]") else {
        throw error(at: i, "expected ',' or ']' after an array element, found \(describe(i))")
      }
      i += 1
      depth -= 1
      return .array(elements)
    }
  }

  private mutating func enter() throws {
    depth += 1
    guard depth <= Self.maxDepth else {
      throw error(at: i, "arrays and objects nest deeper than \(Self.maxDepth) levels")
    }
  }

  private mutating func literal(_ word: StaticString, _ result: JSONValue) throws -> JSONValue {
    let count = word.utf8CodeUnitCount
    guard i + count <= bytes.count,
      word.withUTF8Buffer({ expected in (0..<count).allSatisfy { bytes[i + $0] == expected[$0] } })
    else {
      throw error(at: i, "expected a value, found \(describe(i)) (true, false and null are lower case)")
    }
    i += count
    return result
  }

  private mutating func number() throws -> JSONNumber {
    let start = i
    while i < bytes.count, Self.isNumberByte(bytes[i]) { i += 1 }
    let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
    guard let number = JSONNumber(literal: text) else {
      throw error(
        at: start,
        "'\(text.prefix(40))' is not a JSON number (digits with an optional '-', fraction and exponent up to e±100000;"
          + " no leading zeros, '+' or trailing '.')")
    }
    return number
  }

  private static func isNumberByte(_ b: UInt8) -> Bool {
    (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || b == UInt8(ascii: "-") || b == UInt8(ascii: "+")
      || b == UInt8(ascii: ".") || b == UInt8(ascii: "e") || b == UInt8(ascii: "E")
  }

  /// A string starting at the opening quote: escapes decoded, UTF-8 validated.
  private mutating func string() throws -> String {
    let start = i
    i += 1
    var result: [UInt8] = []
    var runStart = i
    while true {
      guard i < bytes.count else { throw error(at: start, "this string is never closed; add \"") }
      let b = bytes[i]
      if b == UInt8(ascii: "\"") {
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

  private mutating func escape(into result: inout [UInt8]) throws {
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

  private mutating func hex4(at escapeStart: Int) throws -> UInt32 {
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
  private mutating func validateUTF8() throws {
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

  private mutating func skipSpace() {
    while i < bytes.count {
      switch bytes[i] {
      case 0x20, 0x09, 0x0A, 0x0D: i += 1
      default: return
      }
    }
  }

  // MARK: - Errors

  /// Line and column (1-based, in characters) of a byte offset.
  private func position(of offset: Int) -> (line: Int, column: Int) {
    var line = 1
    var column = 1
    var k = 0
    while k < offset, k < bytes.count {
      if bytes[k] == 0x0A {
        line += 1
        column = 1
      } else if bytes[k] & 0xC0 != 0x80 {
        column += 1
      }
      k += 1
    }
    return (line, column)
  }

  private func error(at offset: Int, _ message: String) -> TemplateError {
    let (line, column) = position(of: offset)
    return TemplateError(file: name, line: line, column: column, message: message)
  }

  private func describe(_ offset: Int) -> String {
    offset < bytes.count ? "'\(describeByte(bytes[offset]))'" : "the end of the text"
  }

  private func describeByte(_ b: UInt8) -> String {
    (0x21...0x7E).contains(b) ? String(UnicodeScalar(b)) : "0x\(hex(b))"
  }

  private func hex(_ b: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(b >> 4)], digits[Int(b & 15)]])
  }

  private func hex16(_ v: UInt32) -> String { String(v, radix: 16, uppercase: true) }
}
