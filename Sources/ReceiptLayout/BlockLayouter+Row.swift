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
      items += b.items.map { $0.offsetBy(dx: 0, dy: y + dy) }
    }
    y += height
  }

  private func firstBaseline(_ items: [LaidOutItem]) -> Double? {
    items.lazy.compactMap { item -> Double? in
      if case .glyphs(let run) = item { return run.origin.y }
      return nil
    }.first
  }

  /// The width of every cell of a row.
  func cellWidths(_ row: Row, width: Double, grid: [Int: Double]?) throws -> [Double] {
    let n = row.cells.count
    var widths = [Double](repeating: 0, count: n)
    var used = row.spacing * Double(max(0, n - 1))
    var weights = 0.0
    var autos: [Int] = []
    for (i, cell) in row.cells.enumerated() {
      switch (cell.width, cell.block) {
      case (_, .spacer(let spacer)) where spacer.length != nil:
        widths[i] = spacer.length!.points
        used += widths[i]
      case (_, .spacer(let spacer)):
        weights += spacer.weight
      case (.fixed(let length), _):
        widths[i] = length.points
        used += widths[i]
      case (.weight(let w), _):
        weights += max(w, 0)
      case (.auto, _):
        widths[i] = try grid?[i] ?? naturalWidth(cell.block)
        autos.append(i)
        used += widths[i]
      }
    }
    if used > width, !autos.isEmpty {
      // Auto cells shrink proportionally so the row fits.
      let autoTotal = autos.reduce(0) { $0 + widths[$1] }
      let excess = used - width
      for i in autos where autoTotal > 0 { widths[i] = max(0, widths[i] - excess * widths[i] / autoTotal) }
      used = width
    }
    let free = max(0, width - used)
    for (i, cell) in row.cells.enumerated() {
      if case .spacer(let spacer) = cell.block, spacer.length == nil {
        widths[i] = weights > 0 ? free * spacer.weight / weights : 0
      } else if case .weight(let w) = cell.width {
        widths[i] = weights > 0 ? free * max(w, 0) / weights : 0
      }
    }
    return widths
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

  /// The width a block takes without wrapping.
  func naturalWidth(_ block: Block) throws -> Double {
    switch block {
    case .text(let attributed): return try text.naturalWidth(attributed)
    case .column(let column): return try column.children.map { try naturalWidth($0) }.max() ?? 0
    case .row(let row):
      return try row.cells.reduce(row.spacing * Double(max(0, row.cells.count - 1))) { total, cell in
        if case .fixed(let length) = cell.width { return total + length.points }
        return total + (try naturalWidth(cell.block))
      }
    case .spacer(let spacer): return spacer.length?.points ?? 0
    case .barcode(let barcode): return try encode(barcode).width
    case .image(let image): return try naturalImageWidth(image)
    case .rule, .feed, .cut, .drawerKick: return 0
    }
  }
}
