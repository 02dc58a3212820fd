import Foundation
import ReceiptMarkup
import ReceiptTestSupport
import Testing

/// Exactness against an independent oracle: Python's `decimal` module computes the same sums,
/// differences, products, quotients, roundings (every mode) and formatted amounts for thousands
/// of generated values — 19-digit integers, amounts like 0.125 and 1e-7, numbers written as
/// strings — and every result of the template language must agree.
@Suite struct DecimalOracleTests {
  static let columns = [
    "${c.a + c.b}", "${c.a - c.b}", "${c.a * c.b}", "${c.a / c.b | round:10}", "${c.a | round:2}",
    "${c.a | round:2:half-even}", "${c.a | round:2:up}", "${c.a | round:2:down}", "${c.a | round:2:ceiling}",
    "${c.a | round:2:floor}", "${c.a | number:2}", "${c.a | currency:USD}", "${c.a == c.b}|${c.a < c.b}",
  ]

  static let oracle = #"""
    import sys, json
    from decimal import Decimal as D, getcontext, ROUND_HALF_UP, ROUND_HALF_EVEN, ROUND_UP, ROUND_DOWN, ROUND_CEILING, ROUND_FLOOR
    getcontext().prec = 120
    cent = D("0.01")
    def f(x): return format(x, "f")
    for line in sys.stdin:
        a, b = (D(v) for v in json.loads(line))
        q = lambda m: a.quantize(cent, rounding=m)
        money = q(ROUND_HALF_UP)
        money = money + 0 if money.is_zero() else money  # an amount that rounds to zero has no sign
        cur = ("-$" if money < 0 else "$") + "{:,.2f}".format(abs(money))
        out = [f(a + b), f(a - b), f(a * b), f((a / b).quantize(D("1e-10"), rounding=ROUND_HALF_UP)),
               f(q(ROUND_HALF_UP)), f(q(ROUND_HALF_EVEN)), f(q(ROUND_UP)), f(q(ROUND_DOWN)), f(q(ROUND_CEILING)),
               f(q(ROUND_FLOOR)), "{:,.2f}".format(money), cur, "%s|%s" % (str(a == b).lower(), str(a < b).lower())]
        print("|".join(out))
    """#

  /// A value as an order holds it: an integer of up to 19 digits, an amount with up to 7
  /// fraction digits, or one of the classic traps; sometimes written as a string ("4.80").
  static func value(using g: inout SeededGenerator) -> (json: String, text: String) {
    let traps = ["0.125", "-0.125", "1e-7", "0.005", "2.675", "1.005", "0", "9999999999999999999", "-0.001", "4.80"]
    var text: String
    switch Int.random(in: 0..<4, using: &g) {
    case 0: text = traps.randomElement(using: &g)!
    case 1:
      let digits = Int.random(in: 1...19, using: &g)
      text = String((0..<digits).map { i in Character(String(Int.random(in: (i == 0 ? 1 : 0)...9, using: &g))) })
    default:
      let whole = String(Int.random(in: 0...9_999_999, using: &g))
      let fraction = String(
        (0..<Int.random(in: 1...7, using: &g)).map { _ in Character(String(Int.random(in: 0...9, using: &g))) })
      text = whole + "." + fraction
    }
    if text != "0", Bool.random(using: &g), !text.hasPrefix("-") { text = "-" + text }
    let asString = Int.random(in: 0..<4, using: &g) == 0
    return (asString ? "\"\(text)\"" : text, text)
  }

  @Test func arithmeticRoundingAndFormattingAgreeWithPythonsDecimal() throws {
    var g = SeededGenerator(defaultSeed: 20_261_123)
    var cases: [(a: (json: String, text: String), b: (json: String, text: String))] = []
    while cases.count < 2500 {
      let a = Self.value(using: &g)
      let b = Self.value(using: &g)
      if JSONNumber(literal: b.text) == JSONNumber(0) { continue }  // no division by zero
      cases.append((a, b))
    }
    let order =
      "{\"cases\": [" + cases.map { "{\"a\": \($0.a.json), \"b\": \($0.b.json)}" }.joined(separator: ",") + "]}"
    let body =
      "<repeat items=\"$cases\" as=\"c\"><text>"
      + Self.columns.joined(separator: "|").replacingOccurrences(of: "<", with: "&lt;") + "</text></repeat>"
    let ours = try TemplateFixture.body(body, data: order, options: TemplateOptions(locale: "en_US", strict: true))
      .texts

    let input = cases.map { "[\"\($0.a.text)\", \"\($0.b.text)\"]" }.joined(separator: "\n") + "\n"
    let python = try Tool.run("python3", ["-c", Self.oracle], stdin: Data(input.utf8))
    let expected = python.stdout.split(separator: "\n").map(String.init)
    try #require(expected.count == cases.count, "python: \(python.stderr)")
    try #require(ours.count == cases.count)

    var mismatches = 0
    for (i, (mine, theirs)) in zip(ours, expected).enumerated() {
      let m = plain(mine).split(separator: "|", omittingEmptySubsequences: false).map(String.init)
      let t = theirs.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
      guard m.count == t.count else {
        Issue.record("case \(i): \(mine) vs \(theirs)")
        continue
      }
      for (column, (x, y)) in zip(m, t).enumerated() {
        // Numbers compare by value (1.50 == 1.5); formatted amounts and booleans as text.
        let same =
          column < 10 ? JSONNumber(literal: x) != nil && JSONNumber(literal: x) == JSONNumber(literal: y) : x == y
        if !same, mismatches < 20 {
          mismatches += 1
          Issue.record(
            "a=\(cases[i].a.text) b=\(cases[i].b.text) \(Self.columns[min(column, Self.columns.count - 1)]): ours \(x), Python \(y) — \(g.seedNote)"
          )
        }
      }
    }
    #expect(mismatches == 0)
  }
}
