import Foundation

extension ReceiptDocument {
  /// The receipt's words as plain text, a line per text block (a row's cells on one line,
  /// separated by two spaces; tabs as two spaces): what an e-receipt's text part says beside its
  /// PDF. Bidi isolates, soft hyphens and zero-width characters the layout needs are left out.
  public var plainText: String {
    func lines(_ blocks: [Block]) -> [String] {
      blocks.flatMap { block -> [String] in
        switch block {
        case .text(let text): return text.string.split(separator: "\n", omittingEmptySubsequences: false).map(clean)
        case .column(let column): return lines(column.children)
        case .row(let row):
          let cells = row.cells.map { lines([$0.block]).joined(separator: " ") }.filter { !$0.isEmpty }
          return cells.isEmpty ? [] : [cells.joined(separator: "  ")]
        case .rule: return [""]
        default: return []
        }
      }
    }
    func clean(_ line: Substring) -> String {
      let hidden: Set<Unicode.Scalar> = [
        "\u{2066}", "\u{2067}", "\u{2068}", "\u{2069}", "\u{AD}", "\u{200B}", "\u{2060}",
      ]
      var text = String(String.UnicodeScalarView(line.unicodeScalars.filter { !hidden.contains($0) }))
      text = text.replacingOccurrences(of: "\t", with: "  ")
      return text
    }
    var result = lines(blocks)
    while result.last?.isEmpty == true { result.removeLast() }
    return result.joined(separator: "\n") + "\n"
  }
}
