import ReceiptModel

/// A block element's attributes worked out for one receipt: checked and evaluated, with what
/// they write into the inherited style and, in a row, into the element's cell.
///
/// A repeat expands its body once per item, and most elements in it bind nothing
/// (`<text class="qty">`, `<rule style="dashed"/>`): reading their attributes again at every
/// item — merging the classes, checking every name, parsing each length — was a tenth of binding
/// a receipt. ``TemplateRenderer`` keeps the compiled attributes of such elements for the rest of
/// the receipt, by element and by whether it is a row's cell (an included fragment may be
/// either); an element whose attributes bind data (`data="$number"`) or name strings (`@key`) is
/// worked out afresh each time, as before.
struct CompiledElement {
  /// An element in a template and whether it is placed as a cell of a row.
  struct Key: Hashable {
    let node: ObjectIdentifier
    let inRow: Bool
  }

  var attributes: Attributes
  /// What the element's text-style and paragraph attributes write (empty for an element that
  /// takes no text style).
  var text = TextPatch()
  var paragraph = ParagraphPatch()
  /// Its cell's width and alignment, in a row.
  var width: Cell.Width = .auto
  var alignment: TextAlignment?
}

extension TemplateRenderer {
  /// A block element's compiled attributes: kept from an earlier item of this receipt when
  /// they bind nothing, else worked out now (checks and errors in the order they always came:
  /// the attributes, text style, paragraph, then the cell's).
  func compiled(_ node: MarkupNode, allowed: Set<String>, inRow: Bool, scope: Scope) throws -> CompiledElement {
    let key = CompiledElement.Key(node: ObjectIdentifier(node), inRow: inRow)
    if let kept = compiledElements[key] { return kept }
    var bound = false
    let a = try attributes(of: node, allowed: allowed, scope: scope, bound: &bound)
    var compiled = CompiledElement(attributes: a)
    if node.takesTextStyle {
      compiled.text = try textPatch(a)
      compiled.paragraph = try paragraphPatch(a)
    }
    if inRow {
      if let w = try a.number("weight", in: 0...1000) { compiled.width = .weight(w) }
      if let w = try a.length("width", resolution: resolution) { compiled.width = .fixed(w) }
      compiled.alignment = try a.choice("align", TextAlignment.self)
    }
    if !bound { compiledElements[key] = compiled }
    return compiled
  }
}
