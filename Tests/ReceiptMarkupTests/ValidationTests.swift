import Foundation
import ReceiptMarkup
import Testing

/// Validation without data checks every branch and repeat body; with data, warnings found
/// before an error travel with it; locales are checked and strings fall back in order.
@Suite struct ValidationTests {
  func validate(_ body: String, data: String? = nil) throws -> [String] {
    try TemplateFixture(["t.xml": "<receipt>\n\(body)\n</receipt>"]).library.validate(
      template: "t", data: data.map { Data($0.utf8) })
  }

  @Test(arguments: [
    (
      #"<repeat items="$items"><text>${item.price | curency}</text></repeat>"#,
      "t.xml:2:45: unknown formatter 'curency'"
    ),
    (#"<if test="$a"><text/></if><else><text>${x | sume}</text></else>"#, "t.xml:2:45: unknown formatter 'sume'"),
    (#"<if test="$a"><text/></if><elseif test="$b =! 2"><text/></elseif>"#, "t.xml:2:44: '=' alone is not an operator"),
    (#"<repeat items="$items"><rule style="wavy"/></repeat>"#, "style on <rule> must be one of"),
    (#"<repeat items="$items"><text>${items | sum:'price +'}</text></repeat>"#, "t.xml:2:52: the expression ends"),
    (#"<repeat items="${items | where:'rate = 7'}"><text/></repeat>"#, "t.xml:2:38: '=' alone"),
  ])
  func withoutDataEveryBodyIsChecked(body: String, expected: String) {
    #expect {
      _ = try validate(body)
    } throws: { error in
      let ok = "\(error)".contains(expected)
      if !ok { print("got: \(error)") }
      return ok
    }
  }

  @Test func aValidTemplateWithBranchesAndRepeatsPassesWithoutData() throws {
    let warnings = try validate(
      """
      <repeat items="${items | where:'quantity > 0'}"><text>${item.price * item.quantity | currency:EUR}</text></repeat>
      <if test="$tip > 0"><text>${tip | currency:EUR}</text></if><else><text>-</text></else>
      """)
    #expect(warnings.isEmpty)
  }

  @Test func warningsFoundBeforeAnErrorTravelWithIt() {
    #expect {
      _ = try TemplateFixture.body(
        "<text>No. $number</text><text>${total | currency:EUR}</text>", data: #"{"total": "n/a"}"#)
    } throws: { error in
      guard let e = error as? TemplateError else { return false }
      return e.message.contains("currency needs a number") && e.warnings.contains { $0.contains("$number") }
    }
  }

  @Test func unknownLocalesAreErrorsWhereverTheyComeFrom() {
    #expect {
      try TemplateFixture.body("<text>x</text>", root: #"locale="klingon""#)
    } throws: { "\($0)".contains("unknown locale 'klingon' (locale on <receipt>)") && "\($0)".hasPrefix("t.xml:1:") }
    #expect {
      try TemplateFixture.body("<text>x</text>", data: #"{"locale": "xx_QQ"}"#)
    } throws: { "\($0)".contains("unknown locale 'xx_QQ' (the order's \"locale\")") }
    #expect {
      try TemplateFixture.body("<text>x</text>", options: TemplateOptions(locale: "de_XX"))
    } throws: { "\($0)".contains("unknown locale 'de_XX'") }
    #expect(TemplateLocale.isKnown("de_DE") && TemplateLocale.isKnown("de-AT") && TemplateLocale.isKnown("ja"))
  }

  @Test func translationsFallBackToTheTemplatesLocaleThenEnglish() throws {
    let strings = [
      "Strings/de.json": #"{"thanks": "Danke"}"#, "Strings/en.json": #"{"thanks": "Thanks", "bye": "Bye"}"#,
    ]
    let r = try TemplateFixture.body(
      "<text>@thanks @bye @nowhere</text>", extra: strings, root: #"locale="de_DE""#,
      options: TemplateOptions(locale: "fr_CA"))
    #expect(r.texts == ["Danke Bye nowhere"])
    #expect(r.warnings.count == 2, "\(r.warnings)")
    #expect(r.warnings.contains { $0.contains("no Strings/fr_CA.json or Strings/fr.json") })
    #expect(r.warnings.contains { $0.contains("@nowhere") })
    // A locale whose language file exists: no warning about files.
    let de = try TemplateFixture.body("<text>@thanks</text>", extra: strings, options: TemplateOptions(locale: "de_AT"))
    #expect(de.texts == ["Danke"] && de.warnings.isEmpty)
  }
}
