import Foundation
import ReceiptModel

/// Places blocks on continuous pages: a vertical flow in the content area, split at `cut` blocks.
struct BlockLayouter {
  let text: TextLayouter
  let setup: PageSetup
  /// Where decoded images are kept (the engine's context).
  let images: DecodedImageCache
  private var pages: [LaidOutPage] = []
  var items: [LaidOutItem] = []
  var commands: [DeviceCommand] = []
  var y = 0.0
  /// Where the current flow's y = 0 lies in the page content (non-zero inside row cells), so
  /// that barcodes and images snap to the page's dot grid.
  var originY = 0.0
  /// Decoded image pixels so far (bounded per receipt).
  var decodedPixels = 0

  init(text: TextLayouter, setup: PageSetup, images: DecodedImageCache) {
    self.text = text
    self.setup = setup
    self.images = images
  }

  mutating func layout(_ document: ReceiptDocument) throws -> LaidOutReceipt {
    try Self.check(setup)
    pages = []
    items = []
    commands = []
    y = 0
    let x = setup.contentOriginX.points
    for block in document.blocks {
      try place(block, x: x, width: setup.contentWidth.points)
    }
    // A cut at the very end ends the receipt: no empty page (a blank strip and a second cut)
    // after it.
    if !(pages.last?.cut != nil && items.isEmpty && commands.isEmpty && y == 0) { try finishPage(cut: nil) }
    return LaidOutReceipt(pageSetup: setup, pages: pages, title: document.title)
  }

  /// A page setup layout can work with: margins of 0 or more, a content area at least a quarter
  /// inch wide.
  static func check(_ setup: PageSetup) throws {
    let m = setup.margins
    guard [m.top, m.bottom, m.leading, m.trailing].allSatisfy({ $0.points >= 0 && $0.points.isFinite }) else {
      throw LayoutError.misplaced("margins cannot be negative; use 0 or more")
    }
    guard setup.contentWidth.points >= PageSetup.minimumContentWidth.points else {
      throw LayoutError.misplaced(
        String(
          format:
            "the content area is %.1f mm wide (%.1f mm printable, less the side margins); use wider paper or smaller margins",
          setup.contentWidth.millimetres, setup.paper.printableWidth.millimetres))
    }
  }

  /// Ends the current page: content height, cut length, and items moved below the top margin.
  private mutating func finishPage(cut: CutKind?) throws {
    let top = setup.margins.top.points
    let contentHeight = y
    let cutLength = contentHeight.rounded(.up) + top + setup.margins.bottom.points
    guard cutLength <= PageSetup.maximumLength.points else {
      throw LayoutError.misplaced(
        String(
          format: "the receipt is %.0f mm long; receipts are at most %.0f mm: shorten it or split it with <cut/>",
          Length.pt(cutLength).millimetres, PageSetup.maximumLength.millimetres))
    }
    let moved = items.map { $0.offsetBy(dx: 0, dy: top) }
    pages.append(
      LaidOutPage(
        width: setup.paper.width.points, contentHeight: contentHeight, cutLength: cutLength, items: moved,
        commands: commands, cut: cut))
    items = []
    commands = []
    y = 0
  }

  /// Appends laid-out items moved by (`dx`, `dy`): each copied once, with no array in between
  /// (`items += source.map { … }` copied every glyph run twice and released the copy).
  mutating func append(_ source: [LaidOutItem], dx: Double, dy: Double) {
    for item in source { items.append(item.offsetBy(dx: dx, dy: dy)) }
  }

  /// Places one block at the current y, `width` wide from `x`, and advances y. `alignment`
  /// (from a row cell) overrides a text's alignment and positions narrower blocks.
  mutating func place(_ block: Block, x: Double, width: Double, alignment: TextAlignment? = nil) throws {
    switch block {
    case .text(var attributed):
      if let alignment { attributed.paragraphStyle.alignment = alignment }
      let box = try text.layout(attributed, width: width)
      append(box.items, dx: x, dy: y)
      y += box.height
    case .column(let column):
      let grid = column.grid ? try gridWidths(column.children, width: width) : [:]
      for (i, child) in column.children.enumerated() {
        if i > 0 { y += column.spacing }
        if case .row(let row) = child {
          try placeRow(row, x: x, width: width, grid: grid[i])
        } else {
          try place(child, x: x, width: width, alignment: alignment)
        }
      }
    case .row(let row):
      try placeRow(row, x: x, width: width, grid: nil)
    case .barcode(let barcode):
      try LayoutError.located(barcode.origin) { try placeBarcode(barcode, x: x, width: width, alignment: alignment) }
    case .image(let image):
      try LayoutError.located(image.origin) { try placeImage(image, x: x, width: width, alignment: alignment) }
    case .spacer(let spacer):
      y += spacer.length?.points ?? 0
    case .feed(let length):
      y += length.points
    case .rule(let rule):
      placeRule(rule, x: x, width: width)
    case .cut(let kind):
      try finishPage(cut: kind)
    case .drawerKick(let pin):
      commands.append(.drawerKick(pin))
    }
  }

  /// Lays a block out on its own (for a row cell) at page x `x` and at the current y: its items
  /// with absolute x and y relative to the current y, and its height.
  mutating func box(_ block: Block, x: Double, width: Double, alignment: TextAlignment?) throws -> (
    items: [LaidOutItem], height: Double
  ) {
    let saved = (items: items, y: y, commands: commands, originY: originY)
    items = []
    originY += y
    y = 0
    defer { (items, y, commands, originY) = (saved.items, saved.y, saved.commands + commands, saved.originY) }
    if case .cut = block { throw LayoutError.misplaced("a cut cannot be inside a row") }
    try place(block, x: x, width: width, alignment: alignment)
    return (items, y)
  }

  private mutating func placeRule(_ rule: Rule, x: Double, width: Double) {
    y += rule.padding
    let t = rule.thickness
    switch rule.style {
    case .solid:
      items.append(.rect(FilledRect(rect: Rect(x: x, y: y, width: width, height: t), ink: .black)))
      y += t
    case .double:
      items.append(.rect(FilledRect(rect: Rect(x: x, y: y, width: width, height: t), ink: .black)))
      items.append(.rect(FilledRect(rect: Rect(x: x, y: y + 2 * t, width: width, height: t), ink: .black)))
      y += 3 * t
    case .dashed:
      items.append(.rect(FilledRect(rect: Rect(x: x, y: y, width: width, height: t), ink: .black, dash: max(3 * t, 3))))
      y += t
    }
    y += rule.padding
  }
}

extension LaidOutItem {
  /// Barcodes and images: items that must sit on whole printer dots.
  var isRaster: Bool {
    switch self {
    case .barcode, .image: return true
    case .glyphs, .rect: return false
    }
  }

  /// The item moved by an offset.
  func offsetBy(dx: Double, dy: Double) -> LaidOutItem {
    switch self {
    case .glyphs(var run):
      run.origin.x += dx
      run.origin.y += dy
      return .glyphs(run)
    case .rect(var rect):
      rect.rect.x += dx
      rect.rect.y += dy
      return .rect(rect)
    case .barcode(var code):
      code.rect.x += dx
      code.rect.y += dy
      return .barcode(code)
    case .image(var image):
      image.rect.x += dx
      image.rect.y += dy
      return .image(image)
    }
  }
}
