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

  let bytes: UnsafeBufferPointer<UInt8>
  private let name: String
  var i = 0
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
    // The members in order, with where each name starts (to name a duplicate's first); the
    // dictionary is made once at the end, at its size (grown member by member, most objects
    // were rehashed three times).
    var members: [(name: String, value: JSONValue, offset: Int)] = []
    // Names seen, once an object has more than a few (before that a scan is cheaper).
    var names: Set<String>?
    skipSpace()
    if i < bytes.count, bytes[i] == UInt8(ascii: "}") {
      i += 1
      depth -= 1
      return .object([:])
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
      if names?.contains(key) ?? members.contains(where: { $0.name == key }) {
        let first = members.first { $0.name == key }?.offset ?? keyOffset
        let (line, column) = position(of: first)
        throw error(
          at: keyOffset, "duplicate key \"\(key)\" (first at line \(line), column \(column)); keep only one")
      }
      if names != nil {
        names?.insert(key)
      } else if members.count == 16 {
        names = Set(members.map(\.name) + [key])
      }
      skipSpace()
      guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else {
        throw error(at: i, "expected ':' after the member name \"\(key)\", found \(describe(i))")
      }
      i += 1
      skipSpace()
      let valueStart = i
      members.append((key, try value(), keyOffset))
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
      var object = [String: JSONValue](minimumCapacity: members.count)
      for member in members { object[member.name] = member.value }
      return .object(object)
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
    guard let number = JSONNumber(utf8: UnsafeBufferPointer(rebasing: bytes[start..<i])) else {
      let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
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
  func position(of offset: Int) -> (line: Int, column: Int) {
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

  func error(at offset: Int, _ message: String) -> TemplateError {
    let (line, column) = position(of: offset)
    return TemplateError(file: name, line: line, column: column, message: message)
  }

  func describe(_ offset: Int) -> String {
    offset < bytes.count ? "'\(describeByte(bytes[offset]))'" : "the end of the text"
  }

  func describeByte(_ b: UInt8) -> String {
    (0x21...0x7E).contains(b) ? String(UnicodeScalar(b)) : "0x\(hex(b))"
  }

  func hex(_ b: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(b >> 4)], digits[Int(b & 15)]])
  }

  func hex16(_ v: UInt32) -> String { String(v, radix: 16, uppercase: true) }
}
