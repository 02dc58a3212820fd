import Foundation
import ReceiptTestSupport
import Testing

/// A new user's first template, on the shipped binary: what `validate` catches, what errors say,
/// and the shipped receipt on 58 mm paper (pdftotext -layout as the reader).
@Suite struct TemplateAuthoringTests {
  /// A templates directory with `t.xml`, and an order file.
  func fixture(_ template: String, order: String = "{}") throws -> (directory: URL, order: URL) {
    let directory = try Tool.temporaryDirectory()
    try template.write(to: directory.appendingPathComponent("t.xml"), atomically: true, encoding: .utf8)
    let data = directory.appendingPathComponent("order.json")
    try order.write(to: data, atomically: true, encoding: .utf8)
    return (directory, data)
  }

  func receipt(_ arguments: [String]) throws -> Tool.Result { try Tool.run(try Tool.shippedBinary(), arguments) }

  @Test func validateStrictRejectsWhatRenderWouldGetWrong() throws {
    for (binding, words) in [
      ("${date | datetime:shrot}", "datetime:shrot is neither a style"), ("${total | currency:EURO}", "not 'EURO'"),
    ] {
      let (directory, _) = try fixture("<receipt><text>\(binding)</text></receipt>")
      let result = try receipt(["validate", "t", "--templates", directory.path, "--strict"])
      #expect(result.status == 65 && result.stderr.contains(words), "\(binding): \(result.stderr)")
    }
  }

  @Test func plusAndSumsSayWhatIsWrong() throws {
    let (directory, order) = try fixture(
      "<receipt><text>${'3,41' + 0.19}</text></receipt>",
      order: #"{"items": [{"total": "31.50", "total_tax": "3.60"}, {"total": "10", "total_tax": null}]}"#)
    let plus = try receipt([
      "render", order.path, "--template", "t", "--templates", directory.path, "-o",
      directory.appendingPathComponent("o.pdf").path,
    ])
    #expect(plus.status == 65 && plus.stderr.contains("'+' adds numbers"), "\(plus.stderr)")
    try #"<receipt><text>${items | sum:'total + total_tax' | currency:EUR}</text></receipt>"#.write(
      to: directory.appendingPathComponent("t.xml"), atomically: true, encoding: .utf8)
    let lenient = try receipt(["validate", "t", "--templates", directory.path, "--data", order.path])
    #expect(lenient.status == 0 && lenient.stdout.contains("element 2 of 2 has no value at $total_tax"), "\(lenient)")
    let strict = try receipt(["validate", "t", "--templates", directory.path, "--data", order.path, "--strict"])
    #expect(strict.status == 65 && strict.stderr.contains("element 2 of 2"), "\(strict.stderr)")
  }

  @Test func xmlErrorsNameTheTagAndTheFix() throws {
    let (directory, _) = try fixture("<receipt>\n  <row>\n    <column><text>a</text>\n  </row>\n</receipt>\n")
    let column = try receipt(["validate", "t", "--templates", directory.path])
    #expect(column.status == 65 && column.stderr.contains("t.xml:4:") && column.stderr.contains("<column>"))
    #expect(column.stderr.contains("open since line 3"), "\(column.stderr)")
    try "<receipt><text>100&nbsp;g</text></receipt>".write(
      to: directory.appendingPathComponent("t.xml"), atomically: true, encoding: .utf8)
    let entity = try receipt(["validate", "t", "--templates", directory.path])
    #expect(entity.status == 65 && entity.stderr.contains("write &#160;"), "\(entity.stderr)")
    let (_, bad) = try fixture("<receipt/>", order: "{\n  \"a\": }")
    let order = try receipt([
      "render", bad.path, "--template", "t", "--templates", directory.path, "-o",
      directory.appendingPathComponent("o.pdf").path,
    ])
    #expect(
      order.status == 65 && order.stderr.contains("\(bad.path):2:"), "order errors name the file: \(order.stderr)")
  }

  /// The shipped receipt on 58 mm: every example order's labels stay whole — the receipt number
  /// with its label, the date and time, the cashier, each discount, tax and payment with its
  /// amount on its line — read back with `pdftotext -layout`.
  @Test func theShippedReceiptKeepsItsLabelsWholeOn58mm() throws {
    let examples = Tool.packageRoot.appendingPathComponent("Templates/Examples")
    for name in ["small", "discounts", "large", "restaurant", "japanese"] {
      let out = try Tool.temporaryDirectory().appendingPathComponent("r.pdf")
      let order = examples.appendingPathComponent("\(name).json")
      let result = try receipt(["render", order.path, "--paper", "58mm", "-o", out.path])
      #expect(result.status == 0, "\(result.stderr)")
      let lines = try Tool.run("pdftotext", ["-layout", out.path, "-"]).stdout.split(separator: "\n").map(String.init)
      let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: order)) as? [String: Any])
      let number = "\(json["number"] ?? "")"
      #expect(
        lines.contains { $0.contains(number) && $0.trimmingCharacters(in: .whitespaces).count <= number.count + 12 })
      // The date line ends in the time (a date split before its time ends in a comma).
      let dateLine = lines.first { $0.range(of: #"\d{1,2}:\d{2}"#, options: .regularExpression) != nil }
      #expect(dateLine.map { !$0.hasSuffix(",") && $0.contains("/") || $0.contains(".") } == true, "\(name): \(lines)")
      #expect(!lines.contains { $0.hasSuffix(",") }, "\(name): a label split after its comma: \(lines)")
      var labels: [String] = []
      for key in ["discounts", "taxes"] {
        labels += (json[key] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
      }
      labels += (json["payments"] as? [[String: Any]] ?? []).compactMap { $0["method"] as? String }
      for label in labels {
        // The label's line (not "Cashier" for "Cash"): the label and then its amount's digits.
        let whole = lines.contains { line in
          guard let range = line.range(of: label), range.lowerBound == line.firstIndex(where: { !$0.isWhitespace })
          else { return false }
          return line[range.upperBound...].contains { $0.isNumber }
        }
        #expect(whole, "\(name): '\(label)' and its amount on one line: \(lines)")
      }
    }
  }
}
