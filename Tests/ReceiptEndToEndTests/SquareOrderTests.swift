import Foundation
import ReceiptTestSupport
import Testing

/// Square's Orders API exports through the shipped binary, as a café would print them: money in
/// minor units with `money` (no `/ 100`), the `{"order": …}` wrapper named once with `root`, the
/// lists Square leaves out repeated as empty (no `<if>` around them, `--strict`), at 80 and 58 mm.
/// The oracle for every amount is Babel (CLDR's currency digits and formats, independent of ICU
/// and of our code); poppler reads the PDF.
@Suite(.timeLimit(.minutes(3))) struct SquareOrderTests {
  var receipt: String { (try? Tool.shippedBinary()) ?? "receipt-release-binary-missing" }

  static let template = """
    <receipt paper="80mm" font="DejaVu Sans 9" hyphens="auto" root="order" title="Ticket ${reference_id}">
      <text align="center" bold="true" size="12">Café du Port</text>
      <text align="center">${reference_id}</text>
      <repeat items="$line_items" as="line">
        <text tabs="right -0">${line.quantity}× ${line.name} (${line.base_price_money | money})<tab/>${line.total_money | money}</text>
        <repeat items="$line.modifiers" as="modifier">
          <text size="8" indent="14pt" first-line-indent="6pt">+ ${modifier.name} ${modifier.base_price_money | money} = ${modifier.total_price_money | money}</text>
        </repeat>
      </repeat>
      <repeat items="$discounts" as="discount">
        <text tabs="right -0">${discount.name}<tab/>-${discount.applied_money | money}</text>
      </repeat>
      <text tabs="right -0">TVA<tab/>${total_tax_money | money}</text>
      <text tabs="right -0">Pourboire<tab/>${total_tip_money | money}</text>
      <text tabs="right -0" bold="true">Total<tab/>${total_money | money}</text>
      <text>ID</text>
      <text size="14">$id</text>
      <text>FIN</text>
    </receipt>
    """

  /// Babel's text of each amount (minor units scaled by CLDR's digits for the currency), white
  /// space removed (CLDR inserts a no-break space between a code and digits that Babel leaves
  /// out) and in compatibility form (NFKC): Babel's CLDR writes the yen of ja_JP full width (￥),
  /// Foundation's ICU the same sign in its usual width (¥).
  static func babel(_ amounts: [Int], currency: String, locale: String) throws -> [String] {
    let script = """
      import json, sys
      from decimal import Decimal
      from babel.numbers import format_currency, get_currency_precision
      amounts, code, locale = json.load(sys.stdin)
      digits = get_currency_precision(code)
      print(json.dumps([format_currency(Decimal(a).scaleb(-digits), code, locale=locale) for a in amounts]))
      """
    let input = try JSONSerialization.data(withJSONObject: [amounts, currency, locale])
    let result = try Tool.run("python3", ["-c", script], stdin: input)
    try #require(result.status == 0, "babel: \(result.stderr)")
    let strings = try #require(try JSONSerialization.jsonObject(with: result.output) as? [String])
    return strings.map(Self.squeezed)
  }

  static func squeezed(_ text: String) -> String {
    String(text.precomposedStringWithCompatibilityMapping.unicodeScalars.filter { !$0.properties.isWhitespace })
  }

  func render(_ order: SquareOrders.Order, paper: String, in dir: URL) throws -> (status: Int32, text: String) {
    let data = dir.appendingPathComponent("\(order.name).json")
    try order.json.write(to: data, atomically: true, encoding: .utf8)
    let pdf = dir.appendingPathComponent("\(order.name)-\(paper).pdf")
    let result = try Tool.run(
      receipt,
      [
        "render", data.path, "--template", dir.appendingPathComponent("square.xml").path, "--locale", order.locale,
        "--paper", paper, "--strict", "-o", pdf.path,
      ])
    #expect(result.status == 0, "\(order.name) at \(paper): \(result.stderr)")
    return (result.status, try Tool.run("pdftotext", ["-layout", pdf.path, "-"]).stdout)
  }

  @Test(arguments: ["80mm", "58mm"]) func everyAmountPrintsAsCLDRWritesIt(paper: String) throws {
    let dir = try Tool.temporaryDirectory()
    try Self.template.write(to: dir.appendingPathComponent("square.xml"), atomically: true, encoding: .utf8)
    for order in SquareOrders.all {
      let (status, text) = try render(order, paper: paper, in: dir)
      guard status == 0 else { continue }
      let printed = Self.squeezed(text)
      let expected = try Self.babel(order.amounts, currency: order.currency, locale: order.locale)
      let missing = zip(order.amounts, expected).filter { !printed.contains($0.1) }
      #expect(missing.isEmpty, "\(order.name) at \(paper): not printed as Babel writes them: \(missing)\n\(text)")
      // The lines of the id, between its markers, are the id: no hyphen added inside a code.
      let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
      let start = try #require(lines.lastIndex(of: "ID")), end = try #require(lines.lastIndex(of: "FIN"))
      #expect(lines[(start + 1)..<end].joined() == order.id, "\(order.name) at \(paper): \(lines[start...end])")
    }
  }

  /// Without `root`, `$order.reference_id` is not in the data's top level; the error says where
  /// it is and what to write. A list of another type than an array is still an error.
  @Test func aWrappedOrderIsNamedInTheError() throws {
    let dir = try Tool.temporaryDirectory()
    try Self.template.replacingOccurrences(of: #"root="order" "#, with: "")
      .replacingOccurrences(of: "${reference_id}", with: "${order.reference_id}")
      .write(to: dir.appendingPathComponent("square.xml"), atomically: true, encoding: .utf8)
    let data = dir.appendingPathComponent("o.json")
    try SquareOrders.all[1].json.write(to: data, atomically: true, encoding: .utf8)
    let result = try Tool.run(
      receipt,
      [
        "render", data.path, "--template", dir.appendingPathComponent("square.xml").path, "--strict", "-o",
        dir.appendingPathComponent("o.pdf").path,
      ])
    #expect(result.status == 65, "\(result.stderr)")
    #expect(
      result.stderr.contains("no value at $order.reference_id")
        && result.stderr.contains(#"one level down, under "order": write root="order" on <receipt>"#),
      "\(result.stderr)")
    #expect(result.stderr.contains("square.xml:"), "the template's file:line:column: \(result.stderr)")

    try Self.template.write(to: dir.appendingPathComponent("square.xml"), atomically: true, encoding: .utf8)
    try SquareOrders.all[1].json.replacingOccurrences(
      of: #""line_items": ["#, with: #""discounts": "none", "line_items": ["#
    )
    .write(to: data, atomically: true, encoding: .utf8)
    let wrongType = try Tool.run(
      receipt,
      [
        "render", data.path, "--template", dir.appendingPathComponent("square.xml").path, "-o",
        dir.appendingPathComponent("o.pdf").path,
      ])
    #expect(wrongType.status == 65, "\(wrongType.stderr)")
    #expect(wrongType.stderr.contains("$discounts is a string, not an array"), "\(wrongType.stderr)")
  }
}
