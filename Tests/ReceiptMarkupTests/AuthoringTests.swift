import Foundation
import ReceiptMarkup
import ReceiptModel
import ReceiptTestSupport
import Testing

/// What a template author meets (a French bakery's receipt from a WooCommerce export): checks
/// without data that catch what render would, `+` that never glues money into text, nulls in
/// sums reported with their element, one warning per place, the paper in scope.
@Suite struct AuthoringTests {
  func validate(_ body: String, data: String? = nil, strict: Bool = false) throws -> [String] {
    let fixture = try TemplateFixture(["t.xml": "<receipt>\(body)</receipt>"])
    return try fixture.library.validate(template: "t", data: data.map { Data($0.utf8) }, strict: strict)
  }

  func failure(_ body: String, data: String? = nil, strict: Bool = false) -> String {
    do {
      _ = try validate(body, data: data, strict: strict)
      return "valid"
    } catch {
      return "\(error)"
    }
  }

  /// Formatter arguments written in the template are checked without data, echoing the value.
  @Test(arguments: [
    ("${date | datetime:shrot}", "datetime:shrot is neither a style", "did you mean 'short'?"),
    ("${date | datetime:french}", "'f' is no date field letter", "datetime:french"),
    ("${date | date:'dd.MM.yyyy HH:mm'}", "valid", ""),
    ("${date | date:yMMMd}", "valid", ""),
    ("${total | currency:EURO}", "not 'EURO'", "did you mean 'EUR'?"),
    ("${total | currency:XYZ}", "ISO 4217 code", "not 'XYZ'"),
    ("${total | round:2:half-sideways}", "unknown rounding mode 'half-sideways'", ""),
    ("${total | number:12}", "fraction digits (0…10), not '12'", ""),
    ("${name | pad:10:middle}", "pad aligns left, right or center, not 'middle'", ""),
    ("${name | truncate:many}", "a width (0…10000), not 'many'", ""),
  ])
  func formatterArgumentsAreCheckedWithoutData(binding: String, first: String, second: String) {
    let message = failure("<text>\(binding)</text>")
    #expect(message.contains(first) && (second.isEmpty || message.contains(second)), "\(binding): \(message)")
  }

  @Test func theReceiptsCurrencyIsChecked() {
    #expect(
      failure(#"<text currency="EURO">x</text>"#).contains("unknown property")
        || failure("").contains("valid"))
    let fixture = try? TemplateFixture([
      "t.xml": #"<receipt currency="EURO"><text>${total | currency}</text></receipt>"#
    ])
    #expect(throws: TemplateError.self) { try fixture?.library.validate(template: "t") }
  }

  /// `'3,41' + 0.19` is an error naming both values; `~` joins.
  @Test func plusNeverGluesMoneyIntoText() throws {
    let message = failure(
      "<text>${total + total_tax | currency:EUR}</text>", data: #"{"total": "3,41", "total_tax": "0.19"}"#)
    #expect(message.contains(#""3,41" (text, not a number)"#) && message.contains(#""0.19" (a number)"#), "\(message)")
    #expect(message.contains(#"write "3.41""#) && message.contains("'~'"))
    #expect(failure("<text>${'3,41' + 0.19}</text>").contains("'+' adds numbers"))
    let joined = try TemplateFixture.body(#"<text>${'No. ' ~ id}</text>"#, data: #"{"id": 820982911946154508}"#)
    #expect(joined.texts.joined(separator: " ") == "No. 820982911946154508")
  }

  /// A null or missing operand in `sum:'…'` is a warning naming its element, an error with --strict.
  @Test func aNullInASumIsReportedWithItsElement() throws {
    let data = #"{"items": [{"total": "31.50", "total_tax": "3.60"}, {"total": "10", "total_tax": null}]}"#
    let warnings = try validate("<text>${items | sum:'total + total_tax' | currency:EUR}</text>", data: data)
    #expect(
      warnings == ["t.xml:1:26: sum: element 2 of 2 has no value at $total_tax; left out of the sum"], "\(warnings)")
    #expect(
      failure("<text>${items | sum:'total + total_tax' | currency:EUR}</text>", data: data, strict: true)
        .contains("element 2 of 2 has no value at $total_tax"))
  }

  /// A typo in a path inside a repeat warns once, with how often.
  @Test func aMissingPathWarnsOncePerPlace() throws {
    let items = "[" + Array(repeating: #"{"name": "Brötchen"}"#, count: 20).joined(separator: ",") + "]"
    let warnings = try validate(
      #"<repeat items="$items" as="item"><text>${item.nmae}</text></repeat>"#, data: #"{"items": \#(items)}"#)
    #expect(warnings.count == 1 && warnings[0].hasSuffix("printed empty (20 times)"), "\(warnings)")
    let minus = try validate("<text>${total-total_tax}</text>", data: #"{"total": 2, "total_tax": 1}"#)
    #expect(minus.first?.contains("${total - total_tax}") == true, "\(minus)")
  }

  /// `$receipt` tells the template its paper, resolution and printer model.
  @Test func thePaperIsInScope() throws {
    var options = TemplateOptions(paper: .mm58)
    options.modelName = "generic-58mm"
    let rendered = try TemplateFixture.body(
      "<text>${receipt.paper.name} ${receipt.paper.width} ${receipt.paper.printable} ${receipt.dpi} ${receipt.model}</text>",
      options: options)
    #expect(rendered.texts.joined(separator: " ") == "58mm 58 48 203 generic-58mm")
    let wide = try TemplateFixture.body(
      #"<if test="$receipt.paper.width &lt; 70"><text>narrow</text></if><else><text>wide</text></else>"#,
      root: #"paper="80mm""#)
    #expect(wide.texts.joined(separator: " ") == "wide")
  }

  @Test func classListsTakeCommasOrSpaces() throws {
    let sheet = #"<?properties {"money": {"bold": true}, "small": {"size": 7}}?>"#
    for list in ["money small", "money, small", " money ,small "] {
      let files = ["t.xml": #"\#(sheet)<receipt><text class="\#(list)">1,20 €</text></receipt>"#]
      let rendered = try TemplateFixture(files).render()
      guard case .text(let text)? = rendered.document.blocks.first else { throw RigError("no text") }
      let attributes = text.attributes(at: 0)
      #expect(attributes.font.weight == 700 && attributes.font.size == 7, "\(list)")
    }
  }

  @Test func orderErrorsNameTheirFile() throws {
    let fixture = try TemplateFixture(["t.xml": "<receipt><text>x</text></receipt>"])
    #expect {
      try fixture.library.validate(template: "t", data: Data("{\n \"a\": }".utf8), dataName: "orders/1042.json")
    } throws: { error in
      "\(error)".hasPrefix("orders/1042.json:2:")
    }
  }
}
