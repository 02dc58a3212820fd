/// An element of a parsed template, with its attributes, children and where it is.
final class MarkupNode {
  /// Content of an element in document order.
  enum Child {
    case element(MarkupNode)
    /// Text and a locator for its characters (the location is where the text starts).
    case text(String, Locator)
  }

  let name: String
  /// The element by name, and what it takes (worked out once per parse: a receipt asks for
  /// every element's kind, and comparing names was 2 % of its instructions).
  let kind: Kind
  /// The attributes it takes as a block, as a cell of a row, and inside `<text>` (nil: it is
  /// not one).
  let blockAttributes: Set<String>?
  let cellAttributes: Set<String>?
  let inlineAttributes: Set<String>?
  /// Whether it takes text style (`font`, `size`, …) as a block.
  let takesTextStyle: Bool
  /// Attributes sorted by name (XML attribute order carries no meaning).
  let attributes: [(name: String, value: String)]
  var children: [Child] = []
  let location: SourceLocation
  /// The template's text and where this start tag ends, to place tokens inside attribute values.
  private let source: SourceText?
  private let tagEnd: SourceText.Point

  init(
    name: String, attributes: [String: String], location: SourceLocation, source: SourceText? = nil,
    tagEnd: SourceText.Point = SourceText.Point(line: 0, column: 0)
  ) {
    self.name = name
    kind = Kind(rawValue: name) ?? .unknown
    blockAttributes = Vocabulary.elements[name]
    cellAttributes = Vocabulary.cellElements[name]
    inlineAttributes = Vocabulary.inline[name]
    takesTextStyle = blockAttributes?.contains("font") ?? false
    self.attributes = attributes.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    self.location = location
    self.source = source
    self.tagEnd = tagEnd
  }

  /// The elements of the vocabulary (``Vocabulary``), and any other name.
  enum Kind: String {
    case receipt, fragment, column, row, text, spacer, rule, image, barcode, qrcode, feed, cut, drawer
    case `repeat`, `if`, `elseif`, `else`, include
    case b, i, u, s, inverse, span, br, tab
    /// A name outside the vocabulary (no XML name is empty).
    case unknown = ""
  }

  /// The parts of each text child (nil for an element child), parsed once with the template
  /// (``prepareTexts()``); a parse error is kept and thrown where the text is bound, as it was
  /// when texts were parsed there. Looking each text up by its characters was a hash and a
  /// comparison of the whole text at every text of every receipt.
  private(set) var textParts: [Result<[Interpolation.Part], any Error>?] = []

  /// Parses the texts of this element and of every element inside it (once the tree is built).
  func prepareTexts() {
    textParts = children.map { child in
      switch child {
      case .text(let text, let locator): return Result { try Interpolation.parse(text, at: locator) }
      case .element(let element):
        element.prepareTexts()
        return nil
      }
    }
  }

  /// The value of an attribute.
  func attribute(_ name: String) -> String? { attributes.first { $0.name == name }?.value }

  /// A locator for the characters of an attribute's value (the element's location if unknown).
  func locator(_ attribute: String) -> Locator {
    guard let source else { return Locator(location) }
    return Locator(source: source, anchor: .attribute(tagEnd: tagEnd, name: attribute), fallback: location)
  }

  /// Child elements only.
  var elements: [MarkupNode] {
    children.compactMap {
      if case .element(let e) = $0 { return e }
      return nil
    }
  }
}

/// A processing instruction such as `<?properties receipt-styles?>`.
struct ProcessingInstruction {
  var target: String
  var data: String
  var location: SourceLocation
}

/// A parsed template file.
struct MarkupDocument {
  var root: MarkupNode
  var instructions: [ProcessingInstruction]
  var file: String
}
