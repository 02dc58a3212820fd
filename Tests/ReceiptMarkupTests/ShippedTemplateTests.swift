import Foundation
import ReceiptMarkup
import ReceiptModel
import ReceiptTestSupport
import Testing

/// The templates and examples in Templates/ render, and the PDF shows bound, locale-formatted values.
@Suite struct ShippedTemplateTests {
  let library = try! TemplateLibrary(directory: TemplateFixture.shipped)
  static let examples = ["small", "large", "discounts", "japanese", "arabic"]

  func example(_ name: String) throws -> Data {
    try Data(contentsOf: TemplateFixture.shipped.appendingPathComponent("Examples/\(name).json"))
  }

  @Test(arguments: ["receipt", "kitchen", "gift"], examples)
  func rendersWithoutWarnings(template: String, example name: String) throws {
    let rendered = try library.render(
      template: template, data: try example(name), options: TemplateOptions(strict: true))
    #expect(rendered.warnings.isEmpty, "\(rendered.warnings)")
    let text = try rendered.pdfText()
    let order = try JSONSerialization.jsonObject(with: try example(name)) as! [String: Any]
    let items = order["items"] as! [[String: Any]]
    // Every item name is bound (the large order: the first and last); compared without spaces and
    // bidi controls, which poppler inserts into Arabic.
    let bidiControls = Set(
      "\u{200E}\u{200F}\u{202A}\u{202B}\u{202C}\u{202D}\u{202E}\u{2066}\u{2067}\u{2068}\u{2069}".unicodeScalars)
    let squeezed = String(
      String.UnicodeScalarView(text.unicodeScalars.filter { !bidiControls.contains($0) && !$0.properties.isWhitespace })
    )
    for item in [items.first!, items.last!] {
      let label = (item["name"] as! String).filter { !$0.isWhitespace }
      #expect(squeezed.contains(label), "\(template)/\(name) lacks \(label)")
    }
    if template == "receipt" {
      #expect(squeezed.contains((order["number"] as! String)))
    }
  }

  @Test func germanAndJapaneseTotalsAreFormattedForTheirLocale() throws {
    let de =
      #"{"number": "7", "locale": "de_DE", "currency": "EUR", "store": {"name": "Bistro", "address": "A", "city": "B"}, "items": [{"name": "Menü", "qty": 1, "total": 1234.56}], "subtotal": 1234.56, "total": 1234.56, "taxes": [], "discounts": [], "payments": []}"#
    let text = try library.render(template: "receipt", data: Data(de.utf8)).pdfText()
    #expect(text.contains("1.234,56 €"))
    #expect(text.contains("Zwischensumme") && text.contains("Summe"))
    let ja = de.replacingOccurrences(of: "de_DE", with: "ja_JP").replacingOccurrences(of: "EUR", with: "JPY")
    let jaText = try library.render(template: "receipt", data: Data(ja.utf8)).pdfText()
    #expect(jaText.contains("¥1,235"))
    #expect(jaText.contains("小計"))
  }

  @Test func stringsExistForEveryShippedLanguage() throws {
    let keys = try JSONDecoder().decode(
      [String: String].self, from: Data(contentsOf: TemplateFixture.shipped.appendingPathComponent("Strings/en.json"))
    ).keys
    for language in ["de", "fr", "ja", "ar"] {
      let table = try JSONDecoder().decode(
        [String: String].self,
        from: Data(contentsOf: TemplateFixture.shipped.appendingPathComponent("Strings/\(language).json")))
      #expect(Set(table.keys) == Set(keys), "\(language) strings differ from en")
    }
  }

  @Test(arguments: ["receipt", "kitchen", "gift"])
  func validates(template: String) throws {
    #expect(try library.validate(template: template, data: try example("small"), strict: true).isEmpty)
  }
}

/// Random mutations of the shipped templates never crash the parser or binder: every failure
/// is a template error that says where — a file of the template set, a line and column inside
/// it — and what.
@Suite struct TemplateFuzzTests {
  @Test func mutatedTemplatesFailCleanly() throws {
    var rng = SeededGenerator(defaultSeed: 0x5EED)
    let directory = TemplateFixture.shipped
    let data = try Data(contentsOf: directory.appendingPathComponent("Examples/small.json"))
    let sources = try ["receipt", "kitchen", "gift", "header"].map {
      try String(contentsOf: directory.appendingPathComponent("\($0).xml"), encoding: .utf8)
    }
    let fragments = [
      "<", ">", "/>", "</text>", "<text>", "$", "${", "}", "|", "&", "&amp;", "\"", "'", "@", "<!--", "<?", "]]>",
      "\u{0}", "é", "\n",
    ]
    var failures = 0
    for iteration in 0..<400 {
      var chars = Array(sources[iteration % sources.count])
      for _ in 0..<(1 + Int(rng.next() % 4)) {
        let at = Int(rng.next() % UInt64(chars.count))
        switch rng.next() % 3 {
        case 0: chars.remove(at: at)
        case 1: chars.insert(contentsOf: fragments[Int(rng.next() % UInt64(fragments.count))], at: at)
        default: chars[at] = Character(UnicodeScalar(UInt8(rng.next() % 95 + 32)))
        }
      }
      var mutated = String(chars)
      if iteration % sources.count == 3 { mutated = "<receipt><include template=\"h\"/></receipt>" }
      let files = [
        "t.xml": mutated, "h.xml": String(chars),
        "receipt-styles.json": try String(
          contentsOf: directory.appendingPathComponent("receipt-styles.json"), encoding: .utf8),
        "logo.png": "", "header.xml": sources[3],
      ]
      let fixture = try TemplateFixture(files)
      do {
        _ = try fixture.render(String(decoding: data, as: UTF8.self))
      } catch let error as TemplateError {
        failures += 1
        let name = (error.file as NSString).lastPathComponent
        let lines = files[name].map { $0.split(separator: "\n", omittingEmptySubsequences: false).count }
        #expect(lines != nil || name == "order", "iteration \(iteration): names a file of the set: \(error)")
        if let lines, error.line > 0 {
          #expect(error.line <= lines && error.column >= 1, "iteration \(iteration): a place in \(name): \(error)")
        }
        #expect(error.message.count > 10, "iteration \(iteration): says what: \(error)")
      } catch {
        Issue.record("iteration \(iteration) threw a non-template error: \(error) (\(rng.seedNote))")
      }
    }
    #expect(failures > 100, "most mutations should be caught")
  }
}
