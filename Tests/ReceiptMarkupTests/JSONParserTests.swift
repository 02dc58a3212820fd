import Foundation
import ReceiptMarkup
import ReceiptTestSupport
import Testing

/// The strict JSON parser against Python's `json` module as an independent oracle (numbers as
/// `decimal.Decimal`, duplicate keys, NaN and lone surrogates refused on the Python side), and
/// its error messages with line:column.
@Suite struct JSONParserTests {
  /// A canonical text of a value: sorted keys, numbers as sign/digits/exponent.
  static func canonical(_ value: JSONValue) -> String {
    switch value {
    case .null: return "null"
    case .bool(let b): return b ? "true" : "false"
    case .number(let n):
      // Written by this test from the literal: strip to significant digits and exponent.
      return "N:" + Self.decimalKey(n.literal)
    case .string(let s): return "S:" + Self.escaped(s)
    case .array(let a): return "[" + a.map(canonical).joined(separator: ",") + "]"
    case .object(let o):
      return "{"
        + o.keys.sorted {
          Array($0.unicodeScalars.map(\.value)).lexicographicallyPrecedes($1.unicodeScalars.map(\.value))
        }
        .map { Self.escaped($0) + ":" + canonical(o[$0]!) }.joined(separator: ",") + "}"
    }
  }

  /// "-123e-2" style key of a decimal literal, independent of JSONNumber's own normalisation.
  static func decimalKey(_ literal: String) -> String {
    var text = Substring(literal)
    let negative = text.first == "-"
    if negative { text = text.dropFirst() }
    var exponent = 0
    if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
      exponent = Int(text[text.index(after: e)...].replacingOccurrences(of: "+", with: ""))!
      text = text[..<e]
    }
    var digits = String(text)
    if let dot = digits.firstIndex(of: ".") {
      exponent -= digits.distance(from: dot, to: digits.endIndex) - 1
      digits.remove(at: dot)
    }
    digits = String(digits.drop { $0 == "0" })
    while digits.hasSuffix("0") {
      digits.removeLast()
      exponent += 1
    }
    if digits.isEmpty { return "0" }
    return (negative ? "-" : "") + digits + "e" + String(exponent)
  }

  static func escaped(_ s: String) -> String {
    "\""
      + s.unicodeScalars.map {
        $0.value < 0x80 && $0.value >= 0x20 && $0 != "\"" && $0 != "\\"
          ? String($0) : "\\u{\(String($0.value, radix: 16))}"
      }.joined() + "\""
  }

  /// The Python oracle: one line per document, the canonical text or ERROR.
  static let oracle = """
    import sys, json, base64, decimal
    def key(d):
        sign, digits, exp = d.as_tuple()
        ds = ''.join(map(str, digits)).lstrip('0')
        while ds.endswith('0'):
            ds = ds[:-1]; exp += 1
        return '0' if not ds else ('-' if sign else '') + ds + 'e' + str(exp)
    def esc(s):
        return '"' + ''.join(c if 0x20 <= ord(c) < 0x80 and c not in '"\\\\' else '\\\\u{%x}' % ord(c) for c in s) + '"'
    def canon(v):
        if v is None: return 'null'
        if v is True: return 'true'
        if v is False: return 'false'
        if isinstance(v, decimal.Decimal): return 'N:' + key(v)
        if isinstance(v, str):
            if any(0xD800 <= ord(c) <= 0xDFFF for c in v): raise ValueError('surrogate')
            return 'S:' + esc(v)
        if isinstance(v, list): return '[' + ','.join(canon(x) for x in v) + ']'
        return '{' + ','.join(esc(k) + ':' + canon(v[k]) for k in sorted(v)) + '}'
    def pairs(items):
        d = {}
        for k, v in items:
            if k in d: raise ValueError('duplicate')
            if any(0xD800 <= ord(c) <= 0xDFFF for c in k): raise ValueError('surrogate')
            d[k] = v
        return d
    def bad(x): raise ValueError(x)
    for line in sys.stdin:
        raw = base64.b64decode(line)
        try:
            if raw.startswith(b'\\xef\\xbb\\xbf'): raise ValueError('bom')
            text = raw.decode('utf-8')
            v = json.loads(text, parse_float=decimal.Decimal, parse_int=decimal.Decimal,
                           parse_constant=bad, object_pairs_hook=pairs)
            print(canon(v))
        except (ValueError, RecursionError):
            print('ERROR')
    """

  /// Random JSON texts: nested values with escapes, non-ASCII, 19-digit integers, exponents,
  /// odd spacing, and about half of them damaged by one edit.
  static func documents(count: Int, using generator: inout SeededGenerator) -> [[UInt8]] {
    func number() -> String {
      let choices = [
        "0", "-0", "7", "820982911946154508", "-9223372036854775809", "1.50", "0.125", "1e-7", "2.5E+3", "1e400",
        "-0.0e0", "123456789012345678901234567890",
      ]
      return choices.randomElement(using: &generator)!
    }
    func string() -> String {
      let pieces = ["a", "é", "領収書", "☕️", "\\n", "\\\"", "\\\\", "\\u00e9", "\\ud83d\\ude00", "/", "\\/", " ", "\t"]
      return "\""
        + (0..<Int.random(in: 0...4, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }
        .joined() + "\""
    }
    func space() -> String { ["", " ", "\n", "\t ", "\r\n"].randomElement(using: &generator)! }
    func value(_ depth: Int) -> String {
      switch Int.random(in: 0...(depth > 3 ? 3 : 5), using: &generator) {
      case 0: return number()
      case 1: return string()
      case 2: return ["true", "false", "null"].randomElement(using: &generator)!
      case 3: return number()
      case 4:
        return "["
          + (0..<Int.random(in: 0...3, using: &generator)).map { _ in space() + value(depth + 1) + space() }
          .joined(separator: ",") + "]"
      default:
        let keys = ["a", "b", "data", "é", "a"]
        return "{"
          + (0..<Int.random(in: 0...3, using: &generator)).map { _ in
            space() + "\"" + keys.randomElement(using: &generator)! + "\"" + space() + ":" + space() + value(depth + 1)
          }.joined(separator: ",") + "}"
      }
    }
    return (0..<count).map { _ in
      var bytes = Array((space() + value(0) + space()).utf8)
      if Bool.random(using: &generator), !bytes.isEmpty {
        let at = Int.random(in: 0..<bytes.count, using: &generator)
        switch Int.random(in: 0...3, using: &generator) {
        case 0: bytes.remove(at: at)
        case 1:
          bytes.insert([UInt8(ascii: ","), 0xFF, 0xC3, UInt8(ascii: "}")].randomElement(using: &generator)!, at: at)
        case 2: bytes[at] = [UInt8(ascii: "]"), UInt8(ascii: "\""), 0x00, 0x80].randomElement(using: &generator)!
        default: bytes.insert(contentsOf: Array(",]".utf8), at: at)
        }
      }
      return bytes
    }
  }

  @Test func agreesWithPythonsJSONOnThousandsOfDocuments() throws {
    var generator = SeededGenerator(defaultSeed: 20_261_123)
    let documents = Self.documents(count: 3000, using: &generator)
    let input = documents.map { Data($0).base64EncodedString() }.joined(separator: "\n") + "\n"
    let result = try Tool.run("python3", ["-c", Self.oracle], stdin: Data(input.utf8))
    let expected = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    try #require(expected.count >= documents.count, "python: \(result.stderr)")
    var valid = 0
    for (i, bytes) in documents.enumerated() {
      let ours: String
      do {
        ours = Self.canonical(try JSONParser.parse(Data(bytes)))
        valid += 1
      } catch {
        ours = "ERROR"
      }
      #expect(ours == expected[i], "\(String(decoding: bytes, as: UTF8.self)) — \(generator.seedNote)")
    }
    #expect(valid > 500 && valid < 2800, "both valid and invalid documents were tried (\(valid) valid)")
  }

  @Test(arguments: [
    (#"{"a": 1,}"#, "1:9: a trailing comma before } is not allowed"),
    (#"[1, 2,]"#, "1:7: a trailing comma before ] is not allowed"),
    (#"{"a": 01}"#, "1:7: '01' is not a JSON number"),
    (#"{"a": 1, "a": 2}"#, "1:10: duplicate key \"a\" (first at line 1, column 2)"),
    (#"{"b": 1, "a\u0062": 2, "ab": 3}"#, "1:24: duplicate key \"ab\" (first at line 1, column 10)"),
    ("{\"ü\": 1,\n  \"ü\": 2}", "2:3: duplicate key \"ü\" (first at line 1, column 2)"),
    ("{\"ü€\": 1, \"ü€\": 2}", "1:11: duplicate key \"ü€\" (first at line 1, column 2)"),
    ("{\"a\":\n  \"x\u{01}\"}", "2:5: a control character (U+01) must be escaped"),
    (#"{"a": "\ud800"}"#, "1:8: \\uD800 is half of a surrogate pair"),
    (#"{"a": NaN}"#, "1:7: expected a value"),
    (#"{"a": 1} x"#, "1:10: unexpected 'x' after the JSON value"),
    ("", "1:1: the JSON text is empty"),
    ("{\"a\": \"\u{FEFF}\"}", nil),
  ])
  func errorsNameTheLineAndColumn(text: String, expected: String?) {
    do {
      _ = try JSONParser.parse(Data(text.utf8), name: "order.json")
      #expect(expected == nil, "\(text) should fail")
    } catch {
      #expect(expected.map { "\(error)".hasPrefix("order.json:" + $0) } == true, "\(text): \(error)")
    }
  }

  @Test func invalidUTF8AndAByteOrderMarkAreRefused() {
    #expect(throws: TemplateError.self) {
      try JSONParser.parse(Data([0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xC3, 0x28, 0x22, 0x7D]))
    }
    #expect(throws: TemplateError.self) { try JSONParser.parse(Data([0xEF, 0xBB, 0xBF, 0x7B, 0x7D])) }
    #expect(throws: TemplateError.self) { try JSONParser.parse(Data(#"{"a": "\u0000 ok", "b": "\xED\xA0\x80"}"#.utf8)) }
  }

  @Test func nestingIsBounded() {
    let deep = String(repeating: "[", count: 300) + String(repeating: "]", count: 300)
    #expect { try JSONParser.parse(Data(deep.utf8)) } throws: { "\($0)".contains("deeper than 256") }
    let ok = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
    #expect(throws: Never.self) { try JSONParser.parse(Data(ok.utf8)) }
  }

  @Test func numbersAreExactAndCompareByValue() throws {
    let value = try JSONParser.parse(Data(#"{"id": 820982911946154508, "a": 1.50, "b": 1.5, "c": 1e2, "d": 100}"#.utf8))
    guard case .object(let o) = value, case .number(let id)? = o["id"] else { Issue.record("not parsed"); return }
    #expect(id.literal == "820982911946154508" && id.plainDecimal() == "820982911946154508")
    #expect(o["a"] == o["b"] && o["c"] == o["d"])
    #expect(
      try JSONParser.parse(Data(#"{"x": [1, {"y": 2}]}"#.utf8))
        == JSONParser.parse(Data(#"{ "x" : [ 1.0 , { "y" : 2e0 } ] }"#.utf8)))
    #expect(try JSONParser.parse(Data("[1, 2]".utf8)) != JSONParser.parse(Data("[2, 1]".utf8)))
  }

  @Test func topLevelRangesAreTheBytesThatWereParsed() throws {
    let text = #"{"template": "receipt", "data" : {"items": [1, 2]} , "copies": 2}"#
    let (members, ranges) = try JSONParser.parseObject(Data(text.utf8))
    let data = try #require(ranges["data"])
    #expect(String(decoding: Array(text.utf8)[data], as: UTF8.self) == #"{"items": [1, 2]}"#)
    #expect(members.count == 3)
  }

  /// Duplicates are found in small objects (by a scan) and large ones (by a set), and the message
  /// names where the first one was.
  @Test func aDuplicateIsFoundAmongFewAndManyMembers() {
    for count in [3, 20, 40] {
      let members = (0..<count).map { "\"k\($0)\": \($0)" }
      for duplicate in Set([0, count / 2, count - 1]) {
        let text = "{" + (members + ["\"k\(duplicate)\": 0"]).joined(separator: ", ") + "}"
        let first = Array(text.utf8).firstRange(of: Array("\"k\(duplicate)\"".utf8))!.lowerBound
        let expected = "duplicate key \"k\(duplicate)\" (first at line 1, column \(first + 1))"
        #expect(throws: TemplateError.self, "\(count) \(duplicate)") { try JSONParser.parse(Data(text.utf8)) }
        do {
          _ = try JSONParser.parse(Data(text.utf8))
        } catch {
          #expect("\(error)".contains(expected), "\(error)")
        }
      }
    }
  }

  /// Numbers of up to 19 digits become `Decimal`s without text parsing; at every length and
  /// power of ten the value (and its digits) must be what Foundation's parser reads.
  @Test func exactDecimalsAreWhatFoundationReadsAtEveryLength() throws {
    var state: UInt64 = 35
    func next(_ n: UInt64) -> UInt64 {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return (state >> 33) % n
    }
    let posix = Locale(identifier: "en_US_POSIX")
    for length in 1...38 {
      for _ in 0..<25 {
        var digits = String(1 + next(9))
        for _ in 1..<length { digits += String(next(10)) }
        let literal = (next(2) == 0 ? "-" : "") + digits + "e" + String(Int(next(61)) - 30)
        let number = try #require(JSONNumber(literal: literal))
        let expected = try #require(Decimal(string: literal, locale: posix))
        #expect(number.exactDecimal == expected, "\(literal)")
        #expect(number.exactDecimal?.description == expected.description, "\(literal)")
      }
    }
    #expect(JSONNumber(literal: "1e200")?.exactDecimal == nil)
  }
}
