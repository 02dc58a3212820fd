import Foundation
import ReceiptTestSupport
import Testing

/// Paragraph geometry a reader sees on paper, through the shipped binary: dot leaders never touch
/// the amount they lead to at any printer resolution (netpbm decodes the PNGs), and a hanging
/// indent puts a wrapped line under the text, not under its "+ " (poppler's word boxes).
@Suite struct ParagraphIndentTests {
  var receipt: String { (try? Tool.shippedBinary()) ?? "receipt-release-binary-missing" }

  /// Ink per column of a decoded PNM (true: some dot of the column is black).
  static func inkColumns(_ image: (width: Int, height: Int, bits: Int, data: [UInt8])) -> [Bool] {
    var ink = [Bool](repeating: false, count: image.width)
    let stride = image.bits == 1 ? (image.width + 7) / 8 : image.width
    for y in 0..<image.height {
      for x in 0..<image.width {
        let black =
          image.bits == 1
          ? image.data[y * stride + x / 8] & (0x80 >> UInt8(x % 8)) != 0 : image.data[y * stride + x] < 128
        if black { ink[x] = true }
      }
    }
    return ink
  }

  func png(_ body: String, dpi: Int, in dir: URL, name: String) throws -> [Bool] {
    let template = dir.appendingPathComponent("\(name).xml")
    try #"<receipt paper="58mm" font="DejaVu Sans 9" margin="0">\#(body)</receipt>"#.write(
      to: template, atomically: true, encoding: .utf8)
    let data = dir.appendingPathComponent("order.json")
    try "{}".write(to: data, atomically: true, encoding: .utf8)
    let out = dir.appendingPathComponent("\(name)-\(dpi).png")
    let result = try Tool.run(
      receipt, ["render", data.path, "--template", template.path, "--dpi", "\(dpi)", "-o", out.path])
    try #require(result.status == 0, "\(result.stderr)")
    return Self.inkColumns(try Tool.decodePNG(out))
  }

  /// The same line with and without its leader: the leader's dots are the columns only the first
  /// has; the amount starts at the first ink after the widest blank run of the second.
  @Test(arguments: [180, 203, 300]) func leadersKeepAGapBeforeAndAfter(dpi: Int) throws {
    let dir = try Tool.temporaryDirectory()
    let line = "Remise<tab/>-2,92 €"
    for font in ["DejaVu Sans 9", "DejaVu Sans Mono 9", "DejaVu Sans 7"] {
      let with = try png(#"<text font="\#(font)" tabs="right -0 .">\#(line)</text>"#, dpi: dpi, in: dir, name: "dots")
      let without = try png(#"<text font="\#(font)" tabs="right -0">\#(line)</text>"#, dpi: dpi, in: dir, name: "plain")
      let dots = with.indices.filter { with[$0] && !without[$0] }
      let text = without.indices.filter { without[$0] }
      try #require(!dots.isEmpty && !text.isEmpty, "\(font) at \(dpi) dpi: a leader and text")
      let label = text.filter { $0 < dots.first! }, amount = text.filter { $0 > dots.last! }
      try #require(!label.isEmpty && !amount.isEmpty, "\(font) at \(dpi) dpi: the dots lie between label and amount")
      let before = dots.first! - label.last! - 1, after = amount.first! - dots.last! - 1
      // Two blank dots at least on each side (0.25 mm at 203 dpi): visibly apart.
      #expect(before >= 2 && after >= 2, "\(font) at \(dpi) dpi: \(before) and \(after) blank dots around the leader")
    }
  }

  /// `indent` with a smaller `first-line-indent`: poppler's word boxes put the first line's
  /// first word at the first-line indent and the wrapped line's first word at the head indent.
  @Test func aHangingIndentWrapsUnderTheText() throws {
    let dir = try Tool.temporaryDirectory()
    let template = dir.appendingPathComponent("hang.xml")
    try """
    <receipt paper="58mm" font="DejaVu Sans 9" margin="0">
      <text>Flush</text>
      <text align="right">Edge</text>
      <text indent="24pt" first-line-indent="6pt">+ Supplément chantilly, lait d'avoine et double shot</text>
      <text tail-indent="40pt">Tail indent keeps this long line away from the right edge of the paper</text>
    </receipt>
    """.write(to: template, atomically: true, encoding: .utf8)
    let data = dir.appendingPathComponent("order.json")
    try "{}".write(to: data, atomically: true, encoding: .utf8)
    let pdf = dir.appendingPathComponent("hang.pdf")
    let result = try Tool.run(receipt, ["render", data.path, "--template", template.path, "-o", pdf.path])
    try #require(result.status == 0, "\(result.stderr)")
    let text = try PDFText(pdf: pdf)
    let flush = try #require(text.word("Flush")), edge = try #require(text.word("Edge"))
    let lines = text.lines
    let hanging = try #require(lines.firstIndex { $0.text.hasPrefix("+") }, "\(lines)")
    try #require(hanging + 1 < lines.count)
    #expect(abs(lines[hanging].xMin - flush.xMin - 6) < 0.5, "first line at 6 pt: \(lines[hanging]) vs \(flush)")
    #expect(abs(lines[hanging + 1].xMin - flush.xMin - 24) < 0.5, "wrapped line at 24 pt: \(lines[hanging + 1])")
    let tail = try #require(lines.firstIndex { $0.text.hasPrefix("Tail") })
    #expect(lines.count - tail >= 2, "the tail-indented paragraph wraps: \(lines[tail...])")
    for line in lines[tail...] {
      #expect(line.xMax <= edge.xMax - 40 + 0.5, "tail indent: \(line); the right edge is at \(edge.xMax)")
    }
  }
}
