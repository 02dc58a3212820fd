import Foundation
import ReceiptMarkup
import Testing

/// Expressions in `${…}` and `test`: exact decimal arithmetic, comparisons, logic, and errors
/// that point at the offending token.
@Suite struct ExpressionTests {
  /// An e-commerce export as it comes: a 64-bit id, prices as strings, no line totals.
  let order = """
    {"id": 820982911946154508, "a": 0.1, "b": 0.2, "discount": "1.50", "paid": false, "tip": 0,
     "created": "2026-11-23T14:05:00+01:00", "number": "1042", "payment": "card",
     "items": [{"name": "Tea", "price": "4.80", "quantity": 3, "rate": 7},
               {"name": "Wine", "price": "12.00", "quantity": 1, "rate": 19},
               {"name": "Cake", "price": "3.95", "quantity": 2, "rate": 7}]}
    """

  func text(_ binding: String, locale: String = "de_DE", root: String = "currency=\"EUR\"") throws -> String {
    let r = try TemplateFixture.body(
      "<text>\(binding)</text>", data: order, root: root,
      options: TemplateOptions(locale: locale, strict: true, timeZone: TimeZone(identifier: "UTC")!))
    return plain(r.texts[0])
  }

  @Test(arguments: [
    ("${a + b}", "0.3"), ("$id", "820982911946154508"), ("${id + 1}", "820982911946154509"),
    ("${id | number:0}", "820.982.911.946.154.508"), ("${1 + 2 * 3}", "7"), ("${(1 + 2) * 3}", "9"),
    ("${10 / 4}", "2.5"), ("${-discount}", "-1.5"), ("${items[0].price * items[0].quantity | currency}", "14,40 €"),
    ("${-discount | currency}", "-1,50 €"), ("${'No. ' ~ number}", "No. 1042"), ("${'a' + 'b'}", "ab"),
    ("${'2.50' + '0.19'}", "2.69"), ("${2 - -1}", "3"),
    ("${1e-7 * 3}", "0.0000003"), ("${id * 10}", "8209829119461545080"),
  ])
  func arithmeticIsExactDecimal(binding: String, expected: String) throws {
    #expect(try text(binding) == expected)
  }

  @Test(arguments: [
    ("${items | count}", "3"), ("${items | sum:'price * quantity' | currency}", "34,30 €"),
    ("${items | where:'rate == 7' | sum:'price * quantity' | currency}", "22,30 €"),
    ("${items | min:'price'}", "3.95"), ("${items | max:'price * quantity'}", "14.4"),
    ("${items | where:'quantity > 1' | count}", "2"), ("${items | where:'it.rate > 10' | count}", "1"),
    ("${(items | last).price}", "3.95"), ("${items | where:'rate == 19' | first | count}", "4"),
    ("${(items | min:'rate') + (items | max:'rate')}", "26"),
  ])
  func collections(binding: String, expected: String) throws {
    #expect(try text(binding) == expected)
  }

  @Test func collectionsFeedARepeatForAVATTable() throws {
    let r = try TemplateFixture.body(
      """
      <repeat items="${items | where:'rate == 7'}" as="line"><text>${line.name}: ${line.price * line.quantity | currency}</text></repeat>
      <text>7 %: ${items | where:'rate == 7' | sum:'price * quantity * rate / 107' | round:2}</text>
      <text>19 %: ${items | where:'rate == 19' | sum:'price * quantity * rate / 119' | round:2}</text>
      """, data: order, root: #"currency="EUR""#, options: TemplateOptions(locale: "de_DE", strict: true))
    #expect(r.texts.map(plain) == ["Tea: 14,40 €", "Cake: 7,90 €", "7 %: 1.46", "19 %: 1.92"])
  }

  @Test(arguments: [
    ("${'  x  ' | trim}", "x"), ("${'a-b-c' | replace:'-':' / '}", "a / b / c"), ("[${'ab' | pad:5}]", "[ab   ]"),
    ("${'ab' | pad:5:right}", "   ab"), ("${'ab' | pad:6:center:'*'}", "**ab**"),
    ("${'Chamomile tea' | truncate:8}", "Chamomi…"), ("${'Chamomile' | truncate:6:'...'}", "Cha..."),
    ("${'Chamomile' | substring:0:4}", "Cham"), ("${'Chamomile' | substring:-3}", "ile"),
    ("${payment | map:'cash=Bar, card=Karte'}", "Karte"), ("${payment | map:'cash=Bar'}", "card"),
    ("${payment | upper}", "CARD"),
  ])
  func strings(binding: String, expected: String) throws {
    #expect(try text(binding) == expected)
  }

  @Test func valueMapsComeFromStrings() throws {
    let r = try TemplateFixture.body(
      "<text>${payment | map:@payment}</text>", data: order,
      extra: ["Strings/de.json": #"{"payment.card": "Kartenzahlung"}"#], options: TemplateOptions(locale: "de_DE"))
    #expect(r.texts == ["Kartenzahlung"])
  }

  @Test(arguments: [
    ("${0.125 | round:2}", "0.13"), ("${-0.125 | round:2}", "-0.13"), ("${0.125 | round:2:half-even}", "0.12"),
    ("${0.121 | round:2:up}", "0.13"), ("${-0.129 | round:2:down}", "-0.12"), ("${-0.121 | round:2:floor}", "-0.13"),
    ("${-0.129 | round:2:ceiling}", "-0.12"), ("${0.125 | currency}", "0,13 €"), ("${1250 | round:-2}", "1300"),
  ])
  func roundingIsHalfUpUnlessSaidOtherwise(binding: String, expected: String) throws {
    #expect(try text(binding) == expected)
  }

  @Test func aTemplateMayRoundHalfEven() throws {
    #expect(try text("${0.125 | currency}", root: #"currency="EUR" rounding="half-even""#) == "0,12 €")
    #expect(try text("${0.125 | number:2}", root: #"rounding="half-even""#) == "0,12")
  }

  @Test func timesKeepTheirOffsetUnlessAZoneIsGiven() throws {
    #expect(try text("${created | time:HH:mm}") == "14:05")
    #expect(try text("${created | time:HH:mm}", root: #"timezone="America/New_York""#) == "08:05")
    #expect(try text("${created | timezone:Asia/Tokyo | time:HH:mm}") == "22:05")
    #expect(try text("${created | timezone:UTC}") == "2026-11-23T13:05:00Z")
    #expect(try text("${1700000000 | time:HH:mm}") == "22:13")  // Unix seconds: the options' zone (UTC here)
    #expect(try text("${'2026-11-23T09:30' | time:HH:mm}", root: #"timezone="Europe/Berlin""#) == "09:30")
    #expect(throws: TemplateError.self) { try text("${created | timezone:Mars/Olympus}") }
  }

  @Test func testsTakeExpressionsAndElseif() throws {
    let body = """
      <if test="$tip > 0 or $paid"><text>A</text></if>
      <elseif test="not $paid and ${items | count} >= 3"><text>B</text></elseif>
      <else><text>C</text></else>
      <if test="items[1].price == 12 and discount == '1.50'"><text>D</text></if>
      <if test="$missing.value > 1"><text>E</text></if><elseif test="!$missing"><text>F</text></elseif>
      """
    let r = try TemplateFixture.body(body, data: order)
    #expect(r.texts == ["B", "D", "F"])
    #expect(r.warnings.isEmpty, "tests on missing values are not warnings: \(r.warnings)")
  }

  @Test(arguments: [
    // (template body, expected location and message start)
    ("<text>Total ${a +* b}</text>", "t.xml:1:28: unexpected '*'"),
    ("<text>\n  x ${items | sume:'price'}</text>", "t.xml:2:15: unknown formatter 'sume'; did you mean 'sum'?"),
    (#"<if test="$a &lt; 1 and = 2"><text/></if>"#, "t.xml:1:35: '=' alone is not an operator"),
    ("<text>${items | sum:'price *'}</text>", "t.xml:1:39: the expression ends"),
    ("<text>${a / (b - 0.2)}</text>", "t.xml:1:24: division by zero"),
    ("<text>${'x' * 2}</text>", "t.xml:1:19: '*' needs a number"),
    ("<text>${a == 1 == 2}</text>", "t.xml:1:26: comparisons cannot be chained"),
    ("<text>${a || b}</text>", "t.xml:1:21: use 'and' and 'or'"),
    ("<text>${id * id * id}</text>", "t.xml:1:27: the result of '*' needs more than 38 digits"),
  ])
  func errorsPointAtTheOffendingToken(body: String, expected: String) {
    #expect {
      try TemplateFixture.body(body, data: order)
    } throws: { error in
      let ok = "\(error)".hasPrefix(expected)
      if !ok { print("got: \(error)") }
      return ok
    }
  }

  /// Hostile nesting (found overflowing the stack of the CLI and the daemon): every form of
  /// recursion the grammar has, 30,000 deep, is one error at the level past the limit.
  @Test(arguments: [
    ("<text>${" + String(repeating: "(", count: 30_000) + "1}</text>", "nests deeper than 32 levels"),
    ("<text>${" + String(repeating: "!", count: 30_000) + "paid}</text>", "nests deeper than 32 levels"),
    ("<text>${" + String(repeating: "- ", count: 30_000) + "1}</text>", "nests deeper than 32 levels"),
    ("<text>${" + String(repeating: "not ", count: 30_000) + "paid}</text>", "nests deeper than 32 levels"),
    ("<text>${" + String(repeating: "${", count: 30_000) + "1}</text>", "nests deeper than 32 levels"),
    (
      "<text>${items | where:'" + String(repeating: "(", count: 30_000) + "rate' | count}</text>",
      "nests deeper than 32 levels"
    ),
    ("<text>${1" + String(repeating: " + 1", count: 30_000) + "}</text>", "more than 256 operators"),
    ("<text>${1" + String(repeating: " | trim", count: 30_000) + "}</text>", "more than 256 operators"),
  ])
  func hostileNestingIsAnError(body: String, expected: String) {
    #expect {
      try TemplateFixture.body(body, data: order)
    } throws: { error in
      "\(error)".hasPrefix("t.xml:1:") && "\(error)".contains(expected)
    }
  }

  /// Right at the limits, expressions still work: 32 levels of parentheses, 256 operators.
  @Test func expressionsAtTheLimitsEvaluate() throws {
    #expect(try text("${" + String(repeating: "(", count: 32) + "1" + String(repeating: ")", count: 32) + "}") == "1")
    #expect(try text("${0" + String(repeating: " + 1", count: 256) + "}") == "256")
    #expect(try text("${" + String(repeating: "!", count: 32) + "paid}") == "false")
  }
}
