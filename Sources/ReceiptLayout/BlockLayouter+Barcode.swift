import Foundation
import ReceiptModel

extension BlockLayouter {
  /// A barcode's size on the page, everything in whole printer dots (as points).
  struct BarcodeGeometry {
    var encoded: EncodedBarcode
    /// Module width.
    var module: Double
    /// Quiet zone on each side (and above and below 2D codes).
    var quiet: Double
    /// Height of each module row; linear codes have one row of the bar height.
    var rowHeights: [Double]
    /// Width including both quiet zones.
    var width: Double
    /// Height of the symbol including vertical quiet zones (without human-readable text).
    var height: Double
  }

  /// The smallest module, in dots: one 203-dpi dot (0.125 mm) is below what scanners resolve.
  static let minimumModuleDots = 2

  func encode(_ barcode: Barcode) throws -> BarcodeGeometry {
    guard barcode.moduleDots >= Self.minimumModuleDots else {
      throw LayoutError.barcode(
        symbology: barcode.symbology.rawValue, data: barcode.data,
        reason:
          "a module of \(barcode.moduleDots) dot is too small to scan; use at least \(Self.minimumModuleDots) dots")
    }
    let encoded = try BarcodeEncoder.encode(barcode)
    let dot = 72 / Double(setup.resolution.dpi)
    let module = Double(barcode.moduleDots) * dot
    let quiet = Double(encoded.quietZone) * module
    let linearHeight = (barcode.height.points / dot).rounded() * dot
    let rowHeights = encoded.rowHeights.map { $0 > 0 ? $0.rounded() * module : linearHeight }
    let bars = Double(encoded.modules.first?.count ?? 0) * module
    let verticalQuiet = barcode.symbology.isTwoDimensional ? 2 * quiet : 0
    return BarcodeGeometry(
      encoded: encoded, module: module, quiet: quiet, rowHeights: rowHeights, width: bars + 2 * quiet,
      height: rowHeights.reduce(0, +) + verticalQuiet)
  }

  /// Places a barcode (and its human-readable text for linear codes) at the current y.
  mutating func placeBarcode(_ barcode: Barcode, x: Double, width: Double, alignment: TextAlignment?) throws {
    let g = try encode(barcode)
    guard g.width <= width + 1e-6 else {
      throw LayoutError.misplaced(
        "\(barcode.symbology.rawValue) barcode is \((g.width / g.module * Double(barcode.moduleDots)).clampedInt(.down)) dots wide but only \((width * Double(setup.resolution.dpi) / 72).clampedInt(.down)) fit; use a smaller module size or less data"
      )
    }
    let left = x + offset(for: alignment ?? barcode.alignment, content: g.width, in: width)
    // Snap to the dot grid so bars print on whole dots.
    let dot = 72 / Double(setup.resolution.dpi)
    let snappedX = (left / dot).rounded() * dot
    let snappedY = snapDown(y)
    let top = snappedY + (barcode.symbology.isTwoDimensional ? g.quiet : 0)
    items.append(
      .barcode(
        PlacedBarcode(
          rect: Rect(x: snappedX + g.quiet, y: top, width: g.width - 2 * g.quiet, height: g.rowHeights.reduce(0, +)),
          modules: g.encoded.modules, rowHeights: g.rowHeights, moduleWidth: g.module, symbology: barcode.symbology,
          data: barcode.data)))
    y = snappedY + g.height
    if barcode.humanReadable, !g.encoded.humanReadable.isEmpty {
      let caption = AttributedText(
        g.encoded.humanReadable,
        attributes: TextAttributes(font: FontDescriptor(families: ["DejaVu Sans Mono"], size: 8)),
        paragraphStyle: ParagraphStyle(alignment: .center))
      let box = try text.layout(caption, width: g.width)
      append(box.items, dx: snappedX, dy: y)
      y += box.height
    }
  }

  /// The first y at or below `y` that lies on the printer's dot grid of the finished page
  /// (page y = flow origin + y + top margin).
  func snapDown(_ y: Double) -> Double {
    let dot = 72 / Double(setup.resolution.dpi)
    let offset = originY + setup.margins.top.points
    return ((y + offset) / dot - 1e-9).rounded(.up) * dot - offset
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
