import Foundation
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
    if let context = compiledContext, let kept = library.caches.elements.element(node, inRow: inRow, context: context) {
      compiledElements[key] = kept
      return kept
    }
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
    if !bound {
      compiledElements[key] = compiled
      if let context = compiledContext {
        library.caches.elements.keep(compiled, for: node, inRow: inRow, context: context)
      }
    }
    return compiled
  }
}

/// Compiled elements kept across receipts (a batch's, a daemon's day): an element that binds
/// nothing compiles to the same attributes for every receipt of the same template with the same
/// style sheets at the same resolution — its context (``context(_:)``: a number for what
/// identifies the sheets, each file by its path and version, and the resolution). An element is
/// known by its node, which an entry holds, so no other node can take its address while the
/// entry is kept; a template that changes is parsed into new nodes (``ParsedFileCache``), and
/// its old entries are let go when the table fills. Bounded, and shared by the workers of a
/// batch under a lock (taken for each element's first use in a receipt only).
final class CompiledElements: @unchecked Sendable {
  // @unchecked: every field is behind `lock`; nodes are not changed after parsing.
  /// Most elements kept (a template has a few dozen; every version of every template of a
  /// daemon's day).
  static let capacity = 4096
  /// Most contexts known before the table starts over.
  static let contextCapacity = 256

  private struct Key: Hashable {
    let context: Int
    let node: ObjectIdentifier
    let inRow: Bool
  }

  private let lock = NSLock()
  private var elements: [Key: (node: MarkupNode, compiled: CompiledElement)] = [:]
  private var contexts: [String: Int] = [:]
  private var nextContext = 0

  /// The number for a context's text (the same text, the same number, until the table starts
  /// over: then its elements go too).
  func context(_ text: String) -> Int {
    lock.withLock {
      if let known = contexts[text] { return known }
      if contexts.count >= Self.contextCapacity {
        contexts.removeAll()
        elements.removeAll()
      }
      nextContext += 1
      contexts[text] = nextContext
      return nextContext
    }
  }

  /// The element compiled in `context`, if kept.
  func element(_ node: MarkupNode, inRow: Bool, context: Int) -> CompiledElement? {
    lock.withLock { elements[Key(context: context, node: ObjectIdentifier(node), inRow: inRow)]?.compiled }
  }

  /// Keeps an element compiled in `context` (which binds nothing).
  func keep(_ compiled: CompiledElement, for node: MarkupNode, inRow: Bool, context: Int) {
    lock.withLock {
      if elements.count >= Self.capacity { elements.removeAll() }
      elements[Key(context: context, node: ObjectIdentifier(node), inRow: inRow)] = (node, compiled)
    }
  }
}
