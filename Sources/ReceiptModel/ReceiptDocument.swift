import Foundation

/// A receipt ready for layout: page setup and a vertical stack of blocks.
///
/// `cut` blocks split it into several continuous pages (customer copy, merchant copy).
public struct ReceiptDocument: Hashable, Sendable {
  public var pageSetup: PageSetup
  public var blocks: [Block]
  /// Title for document metadata (PDF title, CUPS job name).
  public var title: String
  /// Directories besides fontconfig's font directories from which a font file may be named by
  /// path (a template's own directory); any other path is refused.
  public var fontDirectories: [String] = []

  /// Creates a document.
  public init(pageSetup: PageSetup = PageSetup(), blocks: [Block] = [], title: String = "Receipt") {
    self.pageSetup = pageSetup
    self.blocks = blocks
    self.title = title
  }

  /// A document of plain text: one text block, the given attributes and paragraph style.
  ///
  /// A trailing newline adds no empty line; tabs and other whitespace are kept.
  public static func plainText(
    _ text: String, attributes: TextAttributes = TextAttributes(),
    paragraphStyle: ParagraphStyle = ParagraphStyle(), pageSetup: PageSetup = PageSetup(), title: String = "Receipt"
  ) -> ReceiptDocument {
    var body = text.replacingOccurrences(of: "\r\n", with: "\n")
    if body.hasSuffix("\n") { body.removeLast() }
    let block = Block.text(AttributedText(body, attributes: attributes, paragraphStyle: paragraphStyle))
    return ReceiptDocument(pageSetup: pageSetup, blocks: [block], title: title)
  }
}
