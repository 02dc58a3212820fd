import Foundation
import ReceiptMarkup
import ReceiptModel
import Testing

@Suite struct BindingTests {
  let order = """
    {"number": "1042", "customer": {"name": "Ada"}, "items": [{"name": "Tea", "price": 3.5}, {"name": "Cake", "price": 4}],
     "total": 1234.56, "currency": "EUR", "rate": 0.075, "date": "2026-11-21T14:05:00Z", "empty": "", "zero": 0}
    """

  @Test func pathsIndexesAndEscapes() throws {
    let r = try TemplateFixture.body(
      "<text>Order $number for $order.customer.name. First: $items[0].name, $$5 off</text>", data: order)
    #expect(r.texts == ["Order 1042 for Ada. First: Tea, $5 off"])
  }

  @Test func whitespaceCollapsesLikeHTMLAndBrBreaksLines() throws {
    let r = try TemplateFixture.body("<text>\n   Hello   <b>big</b>\n  world <br/>  next line  </text>")
    #expect(r.texts == ["Hello big world\nnext line"])
    let runs = r.firstText!.runs
    #expect(runs.contains { $0.attributes.font.weight == 700 })
  }

  @Test(arguments: [
    ("de_DE", "${total | currency}", "1.234,56 €"), ("ja_JP", "${total | currency:JPY}", "¥1,235"),
    ("en_US", "${total | currency:USD}", "$1,234.56"), ("fr_FR", "${total | number:1}", "1 234,6"),
    ("en_US", "${rate | percent:1}", "7.5%"), ("de_DE", "${rate | percent}", "7,5 %"),
    ("en_US", "${date | date:yyyy-MM-dd HH:mm}", "2026-11-21 14:05"),
    ("de_DE", "${date | date:yMMMd}", "21. Nov. 2026"),
    ("en_US", "${date | time:short}", "2:05 PM"), ("en_US", "${customer.name | upper}", "ADA"),
    ("en_US", "${customer.name | lower}", "ada"), ("en_US", "${missing | default:'n/a'}", "n/a"),
    ("en_US", "${empty | default:'-'}", "-"), ("en_US", "${total | currency:$currency}", "€1,234.56"),
  ])
  func formatters(locale: String, binding: String, expected: String) throws {
    let r = try TemplateFixture.body(
      "<text>\(binding)</text>", data: order,
      options: TemplateOptions(locale: locale, timeZone: TimeZone(identifier: "UTC")!))
    #expect(plain(r.texts[0]) == expected)
  }

  @Test func currencyCodeComesFromTheTemplateWhenTheDataHasNone() throws {
    let r = try TemplateFixture.body(
      "<text>${total | currency}</text>", data: #"{"total": 9.5}"#, root: #"currency="GBP" locale="en_GB""#)
    #expect(r.texts == ["£9.50"])
  }

  @Test func missingDataIsEmptyWithAWarningOrAnErrorInStrictMode() throws {
    let lenient = try TemplateFixture.body("<text>Hi $customer.nickname!</text>", data: order)
    #expect(lenient.texts == ["Hi !"])
    #expect(lenient.warnings.count == 1 && lenient.warnings[0].contains("customer.nickname"))
    #expect(lenient.warnings[0].hasPrefix("t.xml:1:"))
    #expect {
      try TemplateFixture.body(
        "<text>Hi $customer.nickname!</text>", data: order, options: TemplateOptions(strict: true))
    } throws: { error in
      "\(error)".hasPrefix("t.xml:1:") && "\(error)".contains("customer.nickname")
    }
  }

  @Test func formatterErrorsNameTheProblem() throws {
    #expect {
      try TemplateFixture.body("<text>${total | curency}</text>", data: order)
    } throws: { "\($0)".contains("unknown formatter 'curency'; did you mean 'currency'?") }
    #expect {
      try TemplateFixture.body("<text>${customer.name | number}</text>", data: order)
    } throws: { "\($0)".contains("number needs a number") }
    #expect {
      try TemplateFixture.body("<text>${total | currency}</text>", data: #"{"total": 1}"#)
    } throws: { "\($0)".contains("ISO 4217") }
  }

  @Test func invalidJSONIsAClearErrorWithLineAndColumn() {
    #expect {
      try TemplateFixture.body("<text>x</text>", data: "{\n  \"a\": }")
    } throws: { "\($0)".hasPrefix("order:2:8: expected a value") }
    #expect {
      try TemplateFixture.body("<text>x</text>", data: #"[{"a": 1}]"#)
    } throws: {
      "\($0)" == "order:1:1: the order must be a JSON object ({\"items\": […], …}), not an array; wrap it in an object"
    }
  }
}
