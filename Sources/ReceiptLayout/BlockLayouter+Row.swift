import ReceiptModel

extension BlockLayouter {
  /// Places a row: fixed cells take their width, auto cells their content's width (or the grid's
  /// column width), weighted cells and spacers share what is left. Cells are laid out
  /// independently and aligned vertically; the row is as tall as its tallest cell.
  mutating func placeRow(_ row: Row, x: Double, width: Double, grid: [Int: Double]?) throws {
    let widths = try cellWidths(row, width: width, grid: grid)
    var boxes: [(items: [LaidOutItem], height: Double)] = []
    var cx = row.rightToLeft ? x + width : x
    for (i, cell) in row.cells.enumerated() {
      let left = row.rightToLeft ? cx - widths[i] : cx
      cx = row.rightToLeft ? left - row.spacing : cx + widths[i] + row.spacing
      if case .spacer = cell.block { continue }
      boxes.append(try box(cell.block, x: left, width: widths[i], alignment: cell.alignment))
    }
    let height = boxes.map(\.height).max() ?? 0
    for b in boxes {
      var dy = 0.0
      switch row.verticalAlignment {
      case .top, .baseline: dy = 0
      case .center: dy = (height - b.height) / 2
      case .bottom: dy = height - b.height
      }
      if row.verticalAlignment == .baseline, let first = firstBaseline(b.items),
        let target = boxes.compactMap({ firstBaseline($0.items) }).max()
      {
        dy = target - first
      }
      // Cells holding barcodes or images move by whole dots, so those stay on the printer's grid.
      if b.items.contains(where: \.isRaster) {
        let dot = 72 / Double(setup.resolution.dpi)
        dy = (dy / dot).rounded() * dot
      }
      append(b.items, dx: 0, dy: y + dy)
    }
    y += height
  }

  private func firstBaseline(_ items: [LaidOutItem]) -> Double? {
    items.lazy.compactMap { item -> Double? in
      if case .glyphs(let run) = item { return run.origin.y }
      return nil
    }.first
  }

  /// The width of every cell of a row. Fixed cells and spacers take their length, auto cells
  /// their natural width (or the grid's), weighted cells share the rest by weight. When that does
  /// not fit, auto cells give up room down to their narrowest (their widest word) before a
  /// weighted cell goes below its own; words are split only when even that does not fit.
  func cellWidths(_ row: Row, width: Double, grid: [Int: Double]?) throws -> [Double] {
    let n = row.cells.count
    var widths = [Double](repeating: 0, count: n)
    var used = row.spacing * Double(max(0, n - 1))
    var autos: [Int] = []
    var flexible: [(index: Int, weight: Double, least: Double)] = []
    for (i, cell) in row.cells.enumerated() {
      switch (cell.width, cell.block) {
      case (_, .spacer(let spacer)) where spacer.length != nil:
        widths[i] = spacer.length!.points
        used += widths[i]
      case (_, .spacer(let spacer)):
        flexible.append((i, max(spacer.weight, 0), 0))
      case (.fixed(let length), _):
        widths[i] = length.points
        used += widths[i]
      case (.weight(let w), _):
        flexible.append((i, max(w, 0), try minContentWidth(cell.block)))
      case (.auto, _):
        widths[i] = try grid?[i] ?? naturalWidth(cell.block)
        autos.append(i)
        used += widths[i]
      }
    }
    let least = flexible.reduce(0) { $0 + $1.least }
    if used + least > width, !autos.isEmpty {
      // Auto cells shrink toward their narrowest, in proportion to the room each can give.
      let narrowest = try autos.map { min(widths[$0], try minContentWidth(row.cells[$0].block)) }
      let room = zip(autos, narrowest).reduce(0) { $0 + widths[$1.0] - $1.1 }
      let excess = used + least - width
      for (k, i) in autos.enumerated() where room > 0 {
        let give = widths[i] - narrowest[k]
        widths[i] -= min(give, excess * give / room)
      }
      used = row.spacing * Double(max(0, n - 1)) + (0..<n).reduce(0) { $0 + widths[$1] }
      if used > width {
        // Even at their narrowest the fixed and auto cells are too wide: they shrink alike.
        let autoTotal = autos.reduce(0) { $0 + widths[$1] }
        let over = used - width
        for i in autos where autoTotal > 0 { widths[i] = max(0, widths[i] - over * widths[i] / autoTotal) }
        used = width
      }
    }
    share(max(0, width - used), among: flexible, into: &widths)
    return widths
  }

  /// Shares free room by weight; a weighted cell whose share is narrower than its widest word
  /// gets that width instead when the room allows every such cell its own.
  private func share(
    _ free: Double, among flexible: [(index: Int, weight: Double, least: Double)], into widths: inout [Double]
  ) {
    var free = free
    var open = flexible
    if flexible.reduce(0, { $0 + $1.least }) <= free {
      while true {
        let weights = open.reduce(0) { $0 + $1.weight }
        let short = open.filter { weights > 0 && free * $0.weight / weights < $0.least - 1e-9 }
        if short.isEmpty { break }
        for cell in short {
          widths[cell.index] = cell.least
          free -= cell.least
        }
        open.removeAll { cell in short.contains { $0.index == cell.index } }
      }
    }
    let weights = open.reduce(0) { $0 + $1.weight }
    for cell in open { widths[cell.index] = weights > 0 ? free * cell.weight / weights : 0 }
  }

  /// For a grid column: per child index, the width of each auto cell's column = the widest
  /// natural width among consecutive rows with that many cells (MarkupKit's alignToGrid).
  func gridWidths(_ children: [Block], width: Double) throws -> [Int: [Int: Double]] {
    var result: [Int: [Int: Double]] = [:]
    var i = 0
    while i < children.count {
      guard case .row(let first) = children[i] else {
        i += 1
        continue
      }
      var j = i
      var widest: [Int: Double] = [:]
      while j < children.count, case .row(let row) = children[j], row.cells.count == first.cells.count {
        for (c, cell) in row.cells.enumerated() where cell.width == .auto {
          if case .spacer = cell.block { continue }
          widest[c] = max(widest[c] ?? 0, try naturalWidth(cell.block))
        }
        j += 1
      }
      for k in i..<j { result[k] = widest }
      i = j
    }
    return result
  }

  /// The narrowest width a block takes without splitting a word (images and barcodes whole).
  func minContentWidth(_ block: Block) throws -> Double {
    switch block {
    case .text(let attributed): return try text.minContentWidth(attributed)
    case .column, .row: return try nestedWidth(block, of: minContentWidth)
    default: return try naturalWidth(block)
    }
  }

  /// A column's widest child or a row's cells side by side, each child measured by `measure`.
  private func nestedWidth(_ block: Block, of measure: (Block) throws -> Double) throws -> Double {
    switch block {
    case .column(let column): return try column.children.map(measure).max() ?? 0
    case .row(let row):
      return try row.cells.reduce(row.spacing * Double(max(0, row.cells.count - 1))) { total, cell in
        if case .fixed(let length) = cell.width { return total + length.points }
        return total + (try measure(cell.block))
      }
    default: return try measure(block)
    }
  }

  /// The width a block takes without wrapping.
  func naturalWidth(_ block: Block) throws -> Double {
    switch block {
    case .text(let attributed): return try text.naturalWidth(attributed)
    case .column, .row: return try nestedWidth(block, of: naturalWidth)
    case .spacer(let spacer): return spacer.length?.points ?? 0
    case .barcode(let barcode): return try encode(barcode).width
    case .image(let image): return try naturalImageWidth(image)
    case .rule, .feed, .cut, .drawerKick: return 0
    }
  }
}
