/// An element of a parsed template, with its attributes, children and where it is.
final class MarkupNode {
  /// Content of an element in document order.
  enum Child {
    case element(MarkupNode)
    /// Text and a locator for its characters (the location is where the text starts).
    case text(String, Locator)
  }

  let name: String
  /// Attributes sorted by name (XML attribute order carries no meaning).
  let attributes: [(name: String, value: String)]
  var children: [Child] = []
  let location: SourceLocation
  /// Where each attribute's value starts, to place tokens inside it.
  private let valueLocators: [String: Locator]

  init(name: String, attributes: [String: String], location: SourceLocation, valueLocators: [String: Locator] = [:]) {
    self.name = name
    self.attributes = attributes.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    self.location = location
    self.valueLocators = valueLocators
  }

  /// The value of an attribute.
  func attribute(_ name: String) -> String? { attributes.first { $0.name == name }?.value }

  /// A locator for the characters of an attribute's value (the element's location if unknown).
  func locator(_ attribute: String) -> Locator { valueLocators[attribute] ?? Locator(location) }

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
