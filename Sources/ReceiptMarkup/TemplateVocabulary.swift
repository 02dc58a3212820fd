public import Foundation
import ReceiptModel

/// The template language's vocabulary as an editor wants it: which elements may appear where,
/// each element's attributes, and the values of attributes that take a fixed set. Built from the
/// same tables the renderer checks against, so completion never offers a name the renderer
/// refuses and never misses one it accepts.
public enum TemplateVocabulary {
  /// Elements that make blocks (children of `<receipt>`, `<fragment>`, `<column>`, `<row>`,
  /// `<repeat>`, `<if>`, `<elseif>` and `<else>`).
  public static var blockElements: [String] {
    Vocabulary.elements.keys.filter { !["receipt", "fragment"].contains($0) }.sorted()
  }

  /// Elements allowed inside `<text>` (and inside each other).
  public static var inlineElements: [String] { Vocabulary.inline.keys.sorted() }

  /// The attributes an element takes, sorted; nil for a name that is not an element.
  public static func attributes(of element: String) -> [String]? {
    (Vocabulary.elements[element] ?? Vocabulary.inline[element]).map { $0.sorted() }
  }

  /// The values an attribute takes when they are a fixed set (`align`, `type` on `<cut>`, the
  /// true/false properties); nil when it takes free text, a number, a length or a binding.
  public static func values(of attribute: String, on element: String) -> [String]? {
    switch (element, attribute) {
    case (_, "bold"), (_, "italic"), (_, "underline"), (_, "strikethrough"), (_, "inverse"), ("column", "grid"),
      ("barcode", "hri"):
      return ["true", "false"]
    case (_, "align"): return TextAlignment.allCases.map(\.rawValue)
    case (_, "wrap"): return LineBreakMode.allCases.map(\.rawValue)
    case (_, "hyphens"): return Hyphenation.allCases.map(\.rawValue)
    case (_, "direction"): return BaseDirection.allCases.map(\.rawValue)
    case ("row", "valign"): return VerticalAlignment.allCases.map(\.rawValue)
    case ("rule", "style"): return Rule.Style.allCases.map(\.rawValue)
    case ("image", "dither"): return DitherMethod.allCases.map(\.rawValue)
    case ("barcode", "type"): return Symbology.allCases.map(\.rawValue)
    case ("cut", "type"): return CutKind.allCases.map(\.rawValue)
    default: return nil
    }
  }

  /// The schema of CodeMirror 5's `xml-hint` add-on, as JSON: `!top` lists the root elements;
  /// each element has `attrs` (name → values or null) and `children`.
  public static func editorSchema() -> Data {
    var schema: [String: Any] = ["!top": ["receipt", "fragment"]]
    let containers: Set = ["receipt", "fragment", "column", "row", "repeat", "if", "elseif", "else"]
    for name in Vocabulary.elements.keys.sorted() + inlineElements {
      var attrs: [String: Any] = [:]
      for attribute in attributes(of: name) ?? [] {
        attrs[attribute] = values(of: attribute, on: name) ?? NSNull()
      }
      let children: [String]
      if containers.contains(name) {
        children = blockElements
      } else if name == "text" || Vocabulary.inline[name] != nil {
        children = ["br", "tab"].contains(name) ? [] : inlineElements
      } else {
        children = []
      }
      schema[name] = ["attrs": attrs, "children": children]
    }
    // Sorted keys: the same vocabulary always gives the same bytes (cacheable, diffable).
    return (try? JSONSerialization.data(withJSONObject: schema, options: [.sortedKeys])) ?? Data("{}".utf8)
  }
}
