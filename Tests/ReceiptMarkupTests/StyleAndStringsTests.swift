import Foundation
import ReceiptMarkup
import ReceiptModel
import Testing

@Suite struct StyleAndStringsTests {
  @Test func classesFromAnExternalSheetAndExplicitAttributesWin() throws {
    let fixture = try TemplateFixture([
      "t.xml": """
      <?properties styles?>
      <receipt><text class="title">A</text><text class="title" size="20">B</text><text class="title, small">C</text></receipt>
      """,
      "styles.json": #"{"title": {"size": 14, "bold": true, "align": "center"}, "small": {"size": 7}}"#,
    ])
    let r = try fixture.render()
    let texts = r.document.blocks.compactMap { block -> AttributedText? in
      if case .text(let t) = block { return t }
      return nil
    }
    #expect(texts.map { $0.runs[0].attributes.font.size } == [14, 20, 7])
    #expect(texts.allSatisfy { $0.runs[0].attributes.font.weight == 700 && $0.paragraphStyle.alignment == .center })
  }

  @Test func inlineStyleSheet() throws {
    let fixture = try TemplateFixture([
      "t.xml": #"<?properties {"big": {"scale": 2}}?><receipt><text class="big">X</text></receipt>"#
    ])
    #expect(try fixture.render().firstText?.runs[0].attributes.horizontalScale == 2)
  }

  @Test func unknownClassSuggestsTheNearestName() throws {
    let fixture = try TemplateFixture([
      "t.xml": #"<?properties {"total": {"bold": true}}?><receipt><text class="totl">X</text></receipt>"#
    ])
    #expect { try fixture.render() } throws: { "\($0)".contains("did you mean 'total'?") }
  }

  @Test func stringsAreLocalizedWithFallbackToTheKey() throws {
    let strings = ["Strings/de.json": #"{"thanks": "Danke!"}"#, "Strings/en.json": #"{"thanks": "Thanks!"}"#]
    let de = try TemplateFixture.body(
      "<text>@thanks @missing.key mail@example.com @@literal</text>", extra: strings,
      options: TemplateOptions(locale: "de_AT"))
    #expect(de.texts == ["Danke! missing.key mail@example.com @literal"])
    #expect(de.warnings.contains { $0.contains("@missing.key") })
    let en = try TemplateFixture.body("<text>@thanks</text>", extra: strings, options: TemplateOptions(locale: "en_US"))
    #expect(en.texts == ["Thanks!"])
  }

  /// A text's `@key` words are found once for the process (``ParsedBindings``); the strings are
  /// still each receipt's locale's, and a missing key still warns each time.
  @Test func oneTextInTurnsOfLocalesTakesEachLocalesStrings() throws {
    let fixture = try TemplateFixture([
      "t.xml": "<receipt><text>(@thanks) @gone @@x</text></receipt>",
      "Strings/de.json": #"{"thanks": "Danke!"}"#, "Strings/en.json": #"{"thanks": "Thanks!"}"#,
    ])
    for locale in ["de_DE", "en_US", "de_AT", "en_GB"] {
      let r = try fixture.render(options: TemplateOptions(locale: locale))
      #expect(r.texts == [locale.hasPrefix("de") ? "(Danke!) gone @x" : "(Thanks!) gone @x"], "\(locale)")
      #expect(r.warnings.contains { $0.contains("@gone") }, "\(locale): \(r.warnings)")
    }
  }

  @Test func rightToLeftLocalesSetTheDirectionAndIsolateValues() throws {
    let r = try TemplateFixture.body(
      "<text>هاتف $phone</text>", data: #"{"phone": "+971 4 123 4567"}"#, options: TemplateOptions(locale: "ar"))
    #expect(r.firstText?.paragraphStyle.baseDirection == .rightToLeft)
    #expect(r.texts == ["هاتف \u{2068}+971 4 123 4567\u{2069}"])
  }

  @Test func localeComesFromOptionsThenDataThenTemplate() throws {
    let body = "<text>${n | number:2}</text>"
    #expect(plain(try TemplateFixture.body(body, data: #"{"n": 1.5}"#, root: #"locale="de_DE""#).texts[0]) == "1,50")
    #expect(
      plain(try TemplateFixture.body(body, data: #"{"n": 1.5, "locale": "fr_FR"}"#, root: #"locale="de_DE""#).texts[0])
        == "1,50")
    let options = TemplateOptions(locale: "en_US")
    #expect(
      try TemplateFixture.body(body, data: #"{"n": 1.5, "locale": "fr_FR"}"#, options: options).texts[0] == "1.50")
  }
}
