import Foundation

/// The words and lines of a PDF's first page with their boxes, as poppler reads them
/// (`pdftotext -bbox-layout`): an independent reader of what text a PDF holds and where, in
/// points from the page's top-left corner.
public struct PDFText: Sendable {
  /// A word or a line: its text and its box.
  public struct Box: Sendable, CustomStringConvertible {
    public var text: String
    public var xMin: Double
    public var yMin: Double
    public var xMax: Double
    public var yMax: Double
    public var width: Double { xMax - xMin }
    public var height: Double { yMax - yMin }
    public var description: String {
      "\"\(text)\" x \(xMin.rounded2)…\(xMax.rounded2) y \(yMin.rounded2)…\(yMax.rounded2)"
    }
  }

  public var pageWidth: Double
  public var pageHeight: Double
  /// Lines in reading order (a line's text is its words joined by spaces).
  public var lines: [Box]
  /// Words in reading order.
  public var words: [Box]

  /// Reads the first page of `pdf`.
  public init(pdf: URL) throws {
    let result = try Tool.run("pdftotext", ["-bbox-layout", "-f", "1", "-l", "1", pdf.path, "-"])
    guard result.status == 0 else { throw RigError("pdftotext -bbox-layout: \(result.stderr)") }
    let xml = result.stdout
    func number(_ name: String, in tag: Substring) -> Double {
      guard let range = tag.range(of: "\(name)=\"") else { return .nan }
      return Double(tag[range.upperBound...].prefix { $0 != "\"" }) ?? .nan
    }
    func unescape(_ text: Substring) -> String {
      text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
        .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
        .replacingOccurrences(of: "&amp;", with: "&")
    }
    let page = xml[xml.range(of: "<page ")!.lowerBound...].prefix { $0 != ">" }
    pageWidth = number("width", in: page)
    pageHeight = number("height", in: page)
    var lines: [Box] = []
    var words: [Box] = []
    for chunk in xml.components(separatedBy: "<line ").dropFirst() {
      let tag = chunk.prefix { $0 != ">" }
      let body = chunk.components(separatedBy: "</line>")[0]
      var lineWords: [Box] = []
      for piece in body.components(separatedBy: "<word ").dropFirst() {
        let wordTag = piece.prefix { $0 != ">" }
        let text = piece.dropFirst(wordTag.count + 1).components(separatedBy: "</word>")[0]
        lineWords.append(
          Box(
            text: unescape(Substring(text)), xMin: number("xMin", in: wordTag), yMin: number("yMin", in: wordTag),
            xMax: number("xMax", in: wordTag), yMax: number("yMax", in: wordTag)))
      }
      words += lineWords
      lines.append(
        Box(
          text: lineWords.map(\.text).joined(separator: " "), xMin: number("xMin", in: tag),
          yMin: number("yMin", in: tag), xMax: number("xMax", in: tag), yMax: number("yMax", in: tag)))
    }
    self.lines = lines
    self.words = words
  }

  /// The first word whose text is `text`.
  public func word(_ text: String) -> Box? { words.first { $0.text == text } }

  /// The first line whose text contains `text`.
  public func line(containing text: String) -> Box? { lines.first { $0.text.contains(text) } }
}

extension Double {
  fileprivate var rounded2: String { String(format: "%.2f", self) }
}

extension Tool {
  /// Renders `template` (the XML of a template file) with `order` through the shipped binary to
  /// a file of `format` (`pdf`, `png` …); the file's URL. Fails with the binary's message.
  public static func renderTemplate(
    _ template: String, order: String = "{}", format: String = "pdf", arguments: [String] = []
  ) throws -> URL {
    let dir = try temporaryDirectory()
    let xml = dir.appendingPathComponent("t.xml")
    try template.write(to: xml, atomically: true, encoding: .utf8)
    let json = dir.appendingPathComponent("order.json")
    try order.write(to: json, atomically: true, encoding: .utf8)
    let out = dir.appendingPathComponent("r.\(format)")
    let result = try run(
      try shippedBinary(), ["render", json.path, "--template", xml.path, "-o", out.path] + arguments)
    guard result.status == 0 else { throw RigError("receipt render: exit \(result.status): \(result.stderr)") }
    return out
  }
}
