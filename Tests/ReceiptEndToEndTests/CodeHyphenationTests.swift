import Foundation
import ReceiptTestSupport
import Testing

/// Automatic hyphenation leaves codes alone, through the shipped binary: an order id, a SKU, an
/// e-mail address, a URL and a camel-cased name wrap at 58 mm without a hyphen they do not have
/// (poppler reads the lines back; they join to the code exactly), while a long word beside them
/// is still hyphenated — in German, French and English.
@Suite struct CodeHyphenationTests {
  var receipt: String { (try? Tool.shippedBinary()) ?? "receipt-release-binary-missing" }

  static let codes = [
    "p4TrW8cLm-QeB7sYfHnJ2kXdA1vGZY", "Bestellnummer_Sonderangebot2026", "anna.lefebvre@restaurantdumarche.fr",
    "https://beispiel.de/rechnungen/Verwaltungsgebaeude", "ChampagnerFrühstückKaffeemaschine",
  ]
  static let words = [
    "de_DE": "Donaudampfschifffahrtsgesellschaft", "fr_FR": "anticonstitutionnellement",
    "en_US": "incomprehensibilities",
  ]

  @Test(arguments: ["de_DE", "fr_FR", "en_US"]) func codesWrapWithoutHyphens(locale: String) throws {
    let dir = try Tool.temporaryDirectory()
    let blocks = (Self.codes + [Self.words[locale]!]).map {
      #"<text>ID</text><text hyphens="auto" size="16">\#($0)</text><text>END</text>"#
    }
    let template = dir.appendingPathComponent("codes.xml")
    try #"<receipt paper="58mm" font="DejaVu Sans 9" locale="\#(locale)">\#(blocks.joined())</receipt>"#.write(
      to: template, atomically: true, encoding: .utf8)
    let data = dir.appendingPathComponent("order.json")
    try "{}".write(to: data, atomically: true, encoding: .utf8)
    let pdf = dir.appendingPathComponent("codes.pdf")
    let result = try Tool.run(receipt, ["render", data.path, "--template", template.path, "-o", pdf.path])
    try #require(result.status == 0, "\(result.stderr)")
    let lines = try Tool.run("pdftotext", ["-layout", pdf.path, "-"]).stdout.split(separator: "\n")
      .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && $0 != "\u{0C}" }
    var printed: [[String]] = []
    for line in lines {
      if line == "ID" {
        printed.append([])
      } else if line != "END", !printed.isEmpty {
        printed[printed.count - 1].append(line)
      }
    }
    try #require(printed.count == Self.codes.count + 1, "\(lines)")
    for (code, pieces) in zip(Self.codes, printed) {
      #expect(pieces.count > 1, "\(code) is wider than the line")
      #expect(pieces.joined() == code, "\(locale): \(code) printed as \(pieces)")
    }
    let word = printed.last!
    #expect(
      word.count > 1 && word.dropLast().allSatisfy { $0.hasSuffix("-") },
      "\(locale): a word is still hyphenated: \(word)")
  }
}
