import Foundation
import ReceiptModel

/// A block produced by an element, with its cell properties when its parent is a row.
struct Placed {
  var block: Block
  var width: Cell.Width = .auto
  var alignment: TextAlignment?
}

extension TemplateRenderer {
  /// The blocks of an element's children; `repeat`, `if`/`else` and `include` expand in place.
  func expand(_ children: [MarkupNode.Child], scope: Scope, style: InheritedStyle, inRow: Bool) throws -> [Placed] {
    var out: [Placed] = []
    try expand(children, scope: scope, style: style, inRow: inRow, into: &out)
    return out
  }

  /// Appends the blocks of an element's children to `out` (a repeat's items, an `if`'s and an
  /// include's blocks go straight where they belong, not through arrays of their own).
  func expand(
    _ children: [MarkupNode.Child], scope: Scope, style: InheritedStyle, inRow: Bool, into out: inout [Placed]
  ) throws {
    var lastIf: Bool?  // the result of the preceding <if>, for <else>
    for child in children {
      let node: MarkupNode
      switch child {
      case .text(let text, let locator):
        guard !TextBuilder.isCollapsible(text) else { continue }
        throw TemplateError(
          locator(text.prefix(while: TextBuilder.collapses).count),
          "text must be inside <text>: wrap \"\(text.trimmingCharacters(in: .whitespacesAndNewlines).prefix(30))\" in <text>…</text>"
        )
      case .element(let e): node = e
      }
      expandedElements += 1
      guard expandedElements <= Self.maxExpandedElements else {
        throw TemplateError(
          node.location,
          "the template expands to more than \(Self.maxExpandedElements) elements (includes and repeats multiply); simplify it"
        )
      }
      defer { if node.kind != .if, node.kind != .elseif { lastIf = nil } }
      switch node.kind {
      case .repeat:
        try repeatElement(node, scope: scope, style: style, inRow: inRow, into: &out)
      case .if, .elseif:
        try checkNames(node, allowed: node.blockAttributes!)
        if node.kind == .elseif, lastIf == nil {
          throw TemplateError(node.location, "<elseif> must follow an <if> or another <elseif>")
        }
        guard let test = node.attribute("test") else {
          throw TemplateError(node.location, "<\(node.name)> needs test=\"…\" (e.g. test=\"$total > 0\")")
        }
        let earlier = node.kind == .elseif && lastIf == true
        // Without data (validation) every branch is expanded, so every branch is checked.
        let passed = try self.test(test, scope: scope, at: node.locator("test"))
        if placeholders || (!earlier && passed) {
          try expand(node.children, scope: scope, style: style, inRow: inRow, into: &out)
        }
        lastIf = earlier || passed
      case .else:
        guard let previous = lastIf else {
          throw TemplateError(node.location, "<else> must follow an <if> or <elseif>")
        }
        try checkNames(node, allowed: [])
        if placeholders || !previous { try expand(node.children, scope: scope, style: style, inRow: inRow, into: &out) }
      case .include:
        try include(node, scope: scope, style: style, inRow: inRow, into: &out)
      default:
        out.append(try element(node, scope: scope, style: style, inRow: inRow))
      }
    }
  }

  private func repeatElement(
    _ node: MarkupNode, scope: Scope, style: InheritedStyle, inRow: Bool, into out: inout [Placed]
  ) throws {
    try checkNames(node, allowed: node.blockAttributes!)
    guard let itemsText = node.attribute("items"), !itemsText.isEmpty else {
      throw TemplateError(
        node.location, "<repeat> needs items=\"$path.to.array\" (or an expression such as ${items | where:'…'})")
    }
    let name = node.attribute("as") ?? "item"
    guard name.first?.isLetter == true, name != "order", name != "loop", name != "it" else {
      throw TemplateError(node.location, "as=\"\(name)\" must be a name (not order, loop or it)")
    }
    let (expression, locator) = try parsedExpression(itemsText, at: node.locator("items"))
    var missing: [DataPath] = []
    let items: [JSONValue]
    switch try evaluate(expression, scope: scope, at: locator, missing: &missing) {
    case .array(let a)?: items = a
    case nil, .null?:
      // Without data the body is expanded once, with an empty item, so it is checked too.
      if placeholders { items = [.object([:])]; break }
      // A missing or null list is an empty one: Square, Shopify and most APIs leave out the
      // lists an order does not have (`modifiers`, `discounts`) rather than send `[]`.
      return
    case let other?:
      let what = expression.plainPath.map { "$\($0)" } ?? "'\(itemsText)'"
      throw TemplateError(node.location, "\(what) is \(other.kind), not an array; <repeat> needs one")
    }
    for (index, item) in items.enumerated() {
      iterations += 1
      guard iterations <= Self.maxIterations else {
        throw TemplateError(node.location, "more than \(Self.maxIterations) repeated items in one receipt")
      }
      var inner = scope
      inner.repeats.append(Scope.Repeat(name: name, item: item, index: index, count: items.count))
      try expand(node.children, scope: inner, style: style, inRow: inRow, into: &out)
    }
  }

  private func include(
    _ node: MarkupNode, scope: Scope, style: InheritedStyle, inRow: Bool, into out: inout [Placed]
  ) throws {
    let a = try attributes(of: node, allowed: node.blockAttributes!, scope: scope)
    guard let name = a["template"] else { throw TemplateError(node.location, "<include> needs template=\"name\"") }
    guard !includeStack.contains(name) else {
      throw TemplateError(
        node.location, "'\(name)' includes itself (\((includeStack + [name]).joined(separator: " → ")))")
    }
    guard includeStack.count < Self.maxIncludeDepth else {
      throw TemplateError(node.location, "includes nest deeper than \(Self.maxIncludeDepth)")
    }
    includes += 1
    guard includes <= Self.maxIncludes else {
      throw TemplateError(
        node.location, "more than \(Self.maxIncludes) includes in one receipt; include fragments less often")
    }
    let document = try load(name, at: node.location)
    guard document.root.name == "fragment" else {
      throw TemplateError(
        document.root.location, "an included template's root must be <fragment>, not <\(document.root.name)>")
    }
    try checkNames(document.root, allowed: [])
    includeStack.append(name)
    defer { includeStack.removeLast() }
    try expand(document.root.children, scope: scope, style: style, inRow: inRow, into: &out)
  }

  /// Checks attribute names only (control elements read their attributes unevaluated).
  func checkNames(_ node: MarkupNode, allowed: Set<String>) throws {
    for (name, _) in node.attributes where !allowed.contains(name) {
      throw TemplateError(node.location, unknown("attribute", name, among: Array(allowed)) + " on <\(node.name)>")
    }
  }

  /// One block element.
  func element(_ node: MarkupNode, scope: Scope, style: InheritedStyle, inRow: Bool) throws -> Placed {
    guard let allowedHere = node.blockAttributes, node.kind != .receipt, node.kind != .fragment else {
      let names = Array(Vocabulary.elements.keys) + Array(Vocabulary.inline.keys)
      var message = unknown("element", "<\(node.name)>", among: names.map { "<\($0)>" })
      if Vocabulary.inline[node.name] != nil { message = "<\(node.name)> belongs inside <text>" }
      throw TemplateError(node.location, message)
    }
    let allowed = inRow ? node.cellAttributes ?? allowedHere : allowedHere
    let compiled = try compiled(node, allowed: allowed, inRow: inRow, scope: scope)
    let a = compiled.attributes
    var style = style
    compiled.text.apply(to: &style.text)
    compiled.paragraph.apply(to: &style.paragraph)
    var placed = Placed(block: .feed(.zero), width: compiled.width, alignment: compiled.alignment)
    let resolution = self.resolution
    switch node.kind {
    case .column:
      let children = try expand(node.children, scope: scope, style: style, inRow: false)
      let spacing = try a.length("spacing", resolution: resolution)?.points ?? 0
      placed.block = .column(Column(children.map(\.block), spacing: spacing, grid: try a.bool("grid") ?? false))
    case .row:
      let cells = try expand(node.children, scope: scope, style: style, inRow: true).map {
        Cell($0.block, width: $0.width, alignment: $0.alignment)
      }
      let spacing = try a.length("spacing", resolution: resolution)?.points ?? 4
      let valign = try a.choice("valign", VerticalAlignment.self) ?? .top
      let rtl = style.paragraph.baseDirection == .rightToLeft
      placed.block = .row(Row(cells, spacing: spacing, verticalAlignment: valign, rightToLeft: rtl))
    case .text:
      placed.block = .text(try text(node, scope: scope, style: style))
    case .spacer:
      if let h = try a.length("height", resolution: resolution) {
        placed.block = .spacer(Spacer(length: h))
      } else {
        let weight = try a.number("weight", in: 0...1000) ?? 1
        placed.block = .spacer(Spacer(length: nil, weight: weight))
        if inRow { placed.width = .auto }
      }
    case .rule:
      placed.block = .rule(
        Rule(
          style: try a.choice("style", Rule.Style.self) ?? .solid,
          thickness: try a.length("thickness", resolution: resolution)?.points ?? 1,
          padding: try a.length("padding", resolution: resolution)?.points ?? 3))
    case .feed:
      placed.block = .feed(try a.length("length", resolution: resolution) ?? .pt(12))
    case .cut:
      placed.block = .cut(try a.choice("type", CutKind.self) ?? .partial)
    case .drawer:
      let pin = try a.number("pin", in: 2...5).map(Int.init) ?? DrawerPin.automatic.rawValue
      guard let p = DrawerPin(rawValue: pin) else {
        throw TemplateError(node.location, "pin on <drawer> must be 2 or 5")
      }
      placed.block = .drawerKick(p)
    case .barcode, .qrcode:
      placed.block = .barcode(try barcode(a, qr: node.kind == .qrcode))
    case .image:
      placed.block = .image(try image(a))
    default:
      throw TemplateError(node.location, "<\(node.name)> cannot be used here")
    }
    if node.kind != .text, node.kind != .column, node.kind != .row { try noContent(node) }
    return placed
  }

  private func noContent(_ node: MarkupNode) throws {
    for child in node.children {
      switch child {
      case .element(let e): throw TemplateError(e.location, "<\(node.name)> takes no elements inside")
      case .text(let t, let locator) where !TextBuilder.isCollapsible(t):
        throw TemplateError(
          locator(t.prefix(while: TextBuilder.collapses).count), "<\(node.name)> takes no text inside; use attributes")
      default: continue
      }
    }
  }

  private func barcode(_ a: Attributes, qr: Bool) throws -> Barcode {
    let symbology: Symbology
    if qr {
      symbology = .qr
    } else {
      guard a["type"] != nil, let s = try a.choice("type", Symbology.self) else {
        throw TemplateError(
          a.location, "<barcode> needs type=\"\(Symbology.allCases.map(\.rawValue).joined(separator: "|"))\"")
      }
      symbology = s
    }
    guard let data = a["data"], !data.isEmpty else {
      throw TemplateError(a.location, "<\(a.element)> needs data=\"…\" (it is empty)")
    }
    let module = try a.number("module", in: 1...50).map(Int.init) ?? (qr ? 4 : 2)
    return Barcode(
      symbology, data: data, moduleDots: module, height: try a.length("height", resolution: resolution) ?? .mm(10),
      humanReadable: try a.bool("hri") ?? true, alignment: try a.choice("align", TextAlignment.self) ?? .center,
      origin: a.location.description)
  }

  private func image(_ a: Attributes) throws -> ImageBlock {
    guard let src = a["src"], !src.isEmpty else { throw TemplateError(a.location, "<image> needs src=\"file.png\"") }
    let data: Data
    if src.hasPrefix("data:") {
      guard let comma = src.firstIndex(of: ","), src[..<comma].hasSuffix(";base64"),
        let decoded = Data(base64Encoded: String(src[src.index(after: comma)...])), decoded.count <= 4 << 20
      else { throw TemplateError(a.location, "src data: URIs must be base64 images of at most 4 MiB") }
      data = decoded
    } else {
      data = try library.read(
        try library.file(src, defaultExtension: nil, at: a.location), limit: 4 << 20, at: a.location)
    }
    return ImageBlock(
      data: data, width: try a.length("width", resolution: resolution),
      alignment: try a.choice("align", TextAlignment.self) ?? .center,
      dither: try a.choice("dither", DitherMethod.self) ?? .floydSteinberg, origin: a.location.description)
  }
}
