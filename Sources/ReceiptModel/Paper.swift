import Foundation

/// A roll paper profile: the paper width and the part of it the print head reaches.
public struct Paper: Hashable, Sendable, CustomStringConvertible {
  /// A short name such as `80mm`.
  public var name: String
  /// The width of the paper roll.
  public var width: Length
  /// The width the print head can reach, centred on the paper.
  public var printableWidth: Length

  /// Creates a paper profile. The printable width is clamped to the paper width.
  public init(name: String, width: Length, printableWidth: Length) {
    self.name = name
    self.width = width
    self.printableWidth = min(printableWidth, width)
  }

  /// 58 mm roll, 48 mm printable (384 dots at 203 dpi).
  public static let mm58 = Paper(name: "58mm", width: .mm(58), printableWidth: .mm(48))
  /// 80 mm roll, 72 mm printable (576 dots at 203 dpi).
  public static let mm80 = Paper(name: "80mm", width: .mm(80), printableWidth: .mm(72))
  /// 112 mm roll, 104 mm printable (832 dots at 203 dpi).
  public static let mm112 = Paper(name: "112mm", width: .mm(112), printableWidth: .mm(104))

  /// A custom roll; by default 4 mm on each side are unprintable, as on common 80 mm printers.
  public static func custom(width: Length, printableWidth: Length? = nil) -> Paper {
    let printable = printableWidth ?? max(width - .mm(8), width * 0.9)
    return Paper(name: "\(formatted(width.millimetres))mm", width: width, printableWidth: printable)
  }

  /// The left edge of the printable area, measured from the paper's left edge.
  public var printableOffset: Length { (width - printableWidth) * 0.5 }

  /// Parses `58mm`, `80mm`, `112mm`, or any other width such as `76mm` or `3in` (a custom roll).
  public init?(parsing text: String) {
    let known = [Paper.mm58, .mm80, .mm112]
    if let paper = known.first(where: { $0.name == text.lowercased() }) {
      self = paper
      return
    }
    guard let width = Length(parsing: text), width.points > 36, width.points < 1000 else { return nil }
    self = .custom(width: width)
  }

  public var description: String {
    "\(name) (\(formatted(printableWidth.millimetres)) mm printable)"
  }
}

func formatted(_ value: Double) -> String {
  value == value.rounded() ? String(Int(value)) : String(format: "%.2f", value)
}

/// Edge insets (top, leading, bottom, trailing) in points.
public struct Insets: Hashable, Sendable {
  public var top: Length
  public var leading: Length
  public var bottom: Length
  public var trailing: Length
  /// Creates insets.
  public init(top: Length, leading: Length, bottom: Length, trailing: Length) {
    (self.top, self.leading, self.bottom, self.trailing) = (top, leading, bottom, trailing)
  }
  /// The same inset on all four sides.
  public init(all value: Length) { self.init(top: value, leading: value, bottom: value, trailing: value) }
  /// 1/8 inch (9 pt) on every side: the border of the original continuous page renderer.
  public static let receiptDefault = Insets(all: .inches(0.125))
}

/// Where and how a receipt is printed: paper, resolution and margins inside the printable area.
public struct PageSetup: Hashable, Sendable {
  public var paper: Paper
  public var resolution: Resolution
  /// Margins inside the printable area; top and bottom are added to the content height.
  public var margins: Insets
  /// Whether the output has one ink (a thermal printer's 1-bit dots): emoji then come from a
  /// monochrome emoji or symbol font when one has them (crisp outlines), and color emoji fonts
  /// only as the last resort (dithered). False for PDF and gray previews, which show color.
  public var monochrome = false

  /// Creates a page setup; the defaults are 80 mm paper, 203 dpi and 1/8" margins.
  public init(paper: Paper = .mm80, resolution: Resolution = .dpi203, margins: Insets = .receiptDefault) {
    self.paper = paper
    self.resolution = resolution
    self.margins = margins
  }

  /// The longest receipt (cut length) receipt lays out: 4 m, which fits every raster format at
  /// 203 dpi (32,767 dots a side) and a PDF page (200 inches). Longer text needs `<cut/>`s.
  public static let maximumLength = Length.mm(4000)
  /// The narrowest content area (a quarter inch).
  public static let minimumContentWidth = Length.pt(18)

  /// The width available to content: printable width minus leading and trailing margins.
  public var contentWidth: Length { paper.printableWidth - margins.leading - margins.trailing }
  /// The x of the content area's left edge on the page (paper) in points.
  public var contentOriginX: Length { paper.printableOffset + margins.leading }
}
