import Foundation
import ReceiptTestSupport
import Testing

@testable import ReceiptMarkup

/// `money` (amounts in minor units), the data root (`root`), and lists an order leaves out —
/// what a POS's or a payment API's export needs. The currencies' digits are checked against
/// Babel's CLDR data, not against our own reading of ICU.
@Suite struct MoneyTests {
  /// Every ISO 4217 code ICU knows: its minor-unit digits as Babel (CLDR) has them. Three codes
  /// differ because CLDR changed them after the ICU that Foundation bundles (HUF 2 → 0, PKR and
  /// RSD 0 → 2); the test names them so a newer ICU shows up here.
  @Test func minorUnitDigitsAreCLDRs() throws {
    let codes = ValueFormatter.currencyCodes.sorted()
    let script = """
      import json, sys
      from babel.numbers import get_currency_precision
      print(json.dumps({c: get_currency_precision(c) for c in json.load(sys.stdin)}))
      """
    let result = try Tool.run("python3", ["-c", script], stdin: try JSONSerialization.data(withJSONObject: codes))
    try #require(result.status == 0, "babel: \(result.stderr)")
    let babel = try #require(try JSONSerialization.jsonObject(with: result.output) as? [String: Int])
    let differing = codes.filter { ValueFormatter.minorUnitDigits(of: $0) != babel[$0] }
    #expect(codes.count > 250)
    #expect(
      differing == ["HUF", "PKR", "RSD"], "\(differing.map { ($0, ValueFormatter.minorUnitDigits(of: $0), babel[$0]) })"
    )
    #expect(ValueFormatter.minorUnitDigits(of: "JPY") == 0 && ValueFormatter.minorUnitDigits(of: "BHD") == 3)
  }

  func texts(_ body: String, _ data: String, root: String = #"locale="en_US""#) throws -> [String] {
    try TemplateFixture.body(body, data: data, root: root, options: .init(strict: true)).texts
  }

  @Test func amountsInMinorUnits() throws {
    let data = """
      {"square": {"amount": 123456, "currency": "EUR"}, "stripe": {"amount": -1250, "currency": "usd"},
       "adyen": {"value": 1000, "currency": "JPY"}, "cents": 995, "fils": "1250", "code": "BHD",
       "big": {"amount": 820982911946154508, "currency": "EUR"}}
      """
    let t = try texts(
      """
      <text>${square | money}|${stripe | money}|${adyen | money}|${cents | money:GBP}|${fils | money:$code}|${big | money}</text>
      """, data)
    #expect(t == ["€1,234.56|-$12.50|¥1,000|£9.95|BHD\u{A0}1.250|€8,209,829,119,461,545.08"], "\(t)")
    // The receipt's currency for a bare integer.
    let fallback = try texts("<text>${cents | money}</text>", data, root: #"locale="de_DE" currency="EUR""#)
    #expect(fallback == ["9,95\u{A0}€"], "\(fallback)")
  }

  @Test(arguments: [
    (#"${half | money:EUR}"#, "a whole number (1250 for 12.50 EUR), not 12.5"),
    (#"${square | money:USD}"#, "the amount is in EUR, but money:USD asks for USD"),
    (#"${cents | money}"#, "money needs an ISO 4217 code"),
    (#"${cents | money:EURO}"#, "ISO 4217"),
    (#"${other | money}"#, #"an integer "amount""#),
  ])
  func mistakesAreNamed(binding: String, message: String) throws {
    let data = #"{"half": 12.5, "square": {"amount": 1, "currency": "EUR"}, "cents": 5, "other": {"total": 5}}"#
    #expect {
      try texts("<text>\(binding)</text>", data)
    } throws: { error in
      "\(error)".contains(message) && "\(error)".contains("t.xml:1:")
    }
  }

  @Test func aWrappedOrderBindsUnderItsRoot() throws {
    let body = "<text>$reference_id|$order.reference_id|${line_items | count}</text>"
    let wrapped = #"{"order": {"reference_id": "CAFE-7", "line_items": [1, 2]}}"#
    let bare = #"{"reference_id": "CAFE-7", "line_items": [1, 2]}"#
    #expect(try texts(body, wrapped, root: #"root="order""#) == ["CAFE-7|CAFE-7|2"])
    #expect(
      try texts(body, bare, root: #"root="order""#) == ["CAFE-7|CAFE-7|2"], "data without the member binds as it is")
    #expect {
      try texts(body, wrapped, root: "")
    } throws: { error in
      "\(error)".contains(
        #"no value at $reference_id in the order data (the data has it one level down, under "order": write root="order" on <receipt>)"#
      )
    }
    #expect(throws: (any Error).self) { try texts(body, #"{"order": [1]}"#, root: #"root="order""#) }
  }

  @Test func missingListsRepeatNothingAndOtherValuesAreErrors() throws {
    let body = """
      <repeat items="$modifiers" as="m"><text>+ $m</text></repeat><text>${discounts | default:[] | count}</text>
      """
    #expect(try texts(body, #"{}"#) == ["0"])
    #expect(try texts(body, #"{"modifiers": null}"#) == ["0"])
    #expect(try texts(body, #"{"modifiers": ["oat"], "discounts": [1, 2]}"#) == ["+ oat", "2"])
    #expect {
      try texts(body, #"{"modifiers": "oat"}"#)
    } throws: { error in
      "\(error)".contains("$modifiers is a string, not an array")
    }
  }
}
