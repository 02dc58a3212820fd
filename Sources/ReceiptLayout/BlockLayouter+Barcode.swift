import Foundation
import ReceiptModel

extension BlockLayouter {
  /// A barcode's size on the page: modules in whole printer dots plus quiet zones.
  struct BarcodeGeometry {
    var encoded: EncodedBarcode
    var module: Double
    var width: Double
    var barsHeight: Double
  }

  func encode(_ barcode: Barcode) throws -> BarcodeGeometry {
    let encoded = try BarcodeEncoder.encode(barcode)
    let dot = 72 / Double(setup.resolution.dpi)
    let module = Double(max(1, barcode.moduleDots)) * dot
    let columns = (encoded.modules.first?.count ?? 0) + 2 * encoded.quietZone
    let linearHeight = (barcode.height.points / dot).rounded() * dot
    let rows = encoded.rowHeights.reduce(0) { $0 + ($1 > 0 ? $1.rounded() * module : linearHeight) }
    let quietRows = barcode.symbology.isTwoDimensional ? 2 * Double(encoded.quietZone) * module : 0
    return BarcodeGeometry(
      encoded: encoded, module: module, width: Double(columns) * module, barsHeight: rows + quietRows)
  }

  /// Places a barcode (and its human-readable text for linear codes) at the current y.
  mutating func placeBarcode(_ barcode: Barcode, x: Double, width: Double, alignment: TextAlignment?) throws {
    let g = try encode(barcode)
    guard g.width <= width + 1e-6 else {
      throw LayoutError.misplaced(
        "\(barcode.symbology.rawValue) barcode is \(Int(g.width / g.module * Double(barcode.moduleDots))) dots wide but only \(Int(width * Double(setup.resolution.dpi) / 72)) fit; use a smaller module size or less data"
      )
    }
    let left = x + offset(for: alignment ?? barcode.alignment, content: g.width, in: width)
    // Snap to the dot grid so bars print on whole dots.
    let dot = 72 / Double(setup.resolution.dpi)
    let snappedX = (left / dot).rounded() * dot
    let snappedY = snapDown(y)
    let quiet = Double(g.encoded.quietZone) * g.module
    let top = snappedY + (barcode.symbology.isTwoDimensional ? quiet : 0)
    let linearHeight = (barcode.height.points / dot).rounded() * dot
    let heights = g.encoded.rowHeights.map { $0 > 0 ? $0.rounded() * g.module : linearHeight }
    let bars = g.width - 2 * quiet
    items.append(
      .barcode(
        PlacedBarcode(
          rect: Rect(x: snappedX + quiet, y: top, width: bars, height: heights.reduce(0, +)),
          modules: g.encoded.modules,
          rowHeights: heights, moduleWidth: g.module, symbology: barcode.symbology, data: barcode.data)))
    y = snappedY + g.barsHeight
    if barcode.humanReadable, !g.encoded.humanReadable.isEmpty {
      let caption = AttributedText(
        g.encoded.humanReadable,
        attributes: TextAttributes(font: FontDescriptor(families: ["DejaVu Sans Mono"], size: 8)),
        paragraphStyle: ParagraphStyle(alignment: .center))
      let box = try text.layout(caption, width: g.width)
      items += box.items.map { $0.offsetBy(dx: snappedX, dy: y) }
      y += box.height
    }
  }

  /// The first y at or below `y` that lies on the printer's dot grid of the finished page
  /// (page y = y + top margin).
  func snapDown(_ y: Double) -> Double {
    let dot = 72 / Double(setup.resolution.dpi)
    let top = setup.margins.top.points
    return ((y + top) / dot - 1e-9).rounded(.up) * dot - top
  }

  /// The x offset of content of a width inside a box, for an alignment (leading = left here).
  func offset(for alignment: TextAlignment, content: Double, in width: Double) -> Double {
    switch alignment {
    case .leading, .left, .justified: return 0
    case .center: return max(0, (width - content) / 2)
    case .trailing, .right: return max(0, width - content)
    }
  }
}
