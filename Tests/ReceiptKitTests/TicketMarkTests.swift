import Foundation
import ReceiptKit
import ReceiptTestSupport
import Testing

/// The shipped receipt and kitchen templates mark reprints ("COPY n"), prints again after an
/// interrupted or unconfirmed one ("REPRINT") and tickets printed on a fallback ("FOR KITCHEN") in every shipped locale, with no missing string; an original carries
/// neither mark. Checked with pdftotext.
@Suite struct TicketMarkTests {
  let engine = try! ReceiptEngine()
  static let templates = Tool.packageRoot.appendingPathComponent("Templates")
  static let order = try! Data(contentsOf: templates.appendingPathComponent("Examples/restaurant.json"))

  func text(template: String, locale: String, variables: [String: JSONValue]) throws -> (String, [String]) {
    let rendered = try engine.templateDocument(
      template: template, data: Self.order, templates: Self.templates,
      options: TemplateOptions(locale: locale, variables: variables))
    let pdf = try Tool.temporaryDirectory().appendingPathComponent("t.pdf")
    try engine.render(rendered.document, format: .pdf).parts[0].write(to: pdf)
    return (try Tool.run("pdftotext", [pdf.path, "-"]).stdout, rendered.warnings)
  }

  @Test(arguments: [
    ("en_US", "COPY", "FOR", "REPRINT"), ("de_DE", "KOPIE", "FÜR", "NACHDRUCK"),
    ("fr_FR", "COPIE", "POUR", "RÉIMPRESSION"),
    ("ja_JP", "再発行", "転送先", "再印刷"), ("ar_EG", "نسخة", "نيابة", "طباعة"),
  ])
  func marksAreLocalized(locale: String, copy: String, forWord: String, reprinted: String) throws {
    let marked = TemplateOptions.ticketVariables(
      route: "kitchen", label: "KITCHEN", fallbackFor: "KITCHEN", reprint: 2, interrupted: 1)
    for template in ["receipt", "kitchen"] {
      let (text, warnings) = try self.text(template: template, locale: locale, variables: marked)
      #expect(warnings.isEmpty, "\(template) \(locale): \(warnings)")
      // pdftotext gives right-to-left words in visual order between embedding marks, and
      // splits "نسخة" before its final ة (a gap it sees between the glyphs): spaces are ignored.
      let letters = text.filter { $0 != " " }
      #expect(letters.contains(copy), "\(template) \(locale): \(text.prefix(300))")
      #expect(text.contains(forWord) && text.contains("KITCHEN"), "\(template) \(locale)")
      #expect(letters.contains(reprinted), "\(template) \(locale): an interrupted print is marked")
      let (original, _) = try self.text(template: template, locale: locale, variables: [:])
      #expect(
        !original.contains(copy) && !original.contains(forWord) && !original.filter({ $0 != " " }).contains(reprinted),
        "\(template) \(locale): an original is unmarked")
    }
  }
}
