/// One element of a receipt. Blocks stack vertically in a column; rows place them side by side.
public indirect enum Block: Hashable, Sendable {
  /// Wrapped, styled text.
  case text(AttributedText)
  /// A vertical stack.
  case column(Column)
  /// Cells side by side.
  case row(Row)
  /// Empty space: fixed height in a column, or a share of the free width in a row.
  case spacer(Spacer)
  /// A horizontal line across the block's width.
  case rule(Rule)
  /// A raster image such as a logo.
  case image(ImageBlock)
  /// A 1D or 2D barcode, encoded by zint during layout.
  case barcode(Barcode)
  /// Blank paper of a fixed length.
  case feed(Length)
  /// Ends the current continuous page (receipt) and starts the next one.
  case cut(CutKind)
  /// Opens the cash drawer (a device command; it takes no space).
  case drawerKick(DrawerPin)
}

/// How the paper is cut at a `cut` block.
public enum CutKind: String, Hashable, Sendable, CaseIterable {
  /// Leaves a small hinge.
  case partial
  case full
}

/// The drawer-kick connector pin.
public enum DrawerPin: Int, Hashable, Sendable, CaseIterable {
  /// The printer model's drawer (its first pin; pin 2 when no model is known).
  case automatic = 0
  case pin2 = 2
  case pin5 = 5
}

/// A vertical stack of blocks.
public struct Column: Hashable, Sendable {
  public var children: [Block]
  /// Space between children, in points.
  public var spacing: Double
  /// When true, the cells of consecutive rows are aligned as a grid: each column of cells takes
  /// the width of its widest cell (MarkupKit's `alignToGrid`).
  public var grid: Bool
  /// Creates a column.
  public init(_ children: [Block] = [], spacing: Double = 0, grid: Bool = false) {
    self.children = children
    self.spacing = spacing
    self.grid = grid
  }
}

/// Cells placed side by side.
public struct Row: Hashable, Sendable {
  public var cells: [Cell]
  /// Horizontal space between cells, in points.
  public var spacing: Double
  /// Vertical alignment of cells of different heights.
  public var verticalAlignment: VerticalAlignment
  /// Place the first cell at the right (right-to-left receipts).
  public var rightToLeft: Bool
  /// Creates a row.
  public init(
    _ cells: [Cell] = [], spacing: Double = 0, verticalAlignment: VerticalAlignment = .top, rightToLeft: Bool = false
  ) {
    self.cells = cells
    self.spacing = spacing
    self.verticalAlignment = verticalAlignment
    self.rightToLeft = rightToLeft
  }
}

/// Vertical alignment of the cells in a row.
public enum VerticalAlignment: String, Hashable, Sendable, CaseIterable {
  case top, center, bottom
  /// Align the first baselines of text cells.
  case baseline
}

/// One cell of a row.
public struct Cell: Hashable, Sendable {
  /// How wide a cell is.
  public enum Width: Hashable, Sendable {
    /// As wide as its content needs (up to the free width).
    case auto
    /// A fixed width.
    case fixed(Length)
    /// A share of the width left after fixed and auto cells.
    case weight(Double)
  }
  public var block: Block
  public var width: Width
  /// Horizontal alignment of the content inside the cell (for text, the paragraph alignment).
  public var alignment: TextAlignment?
  /// Creates a cell.
  public init(_ block: Block, width: Width = .auto, alignment: TextAlignment? = nil) {
    self.block = block
    self.width = width
    self.alignment = alignment
  }
}

/// Empty space.
public struct Spacer: Hashable, Sendable {
  /// A fixed size (height in a column, width in a row), or none for a weighted spacer.
  public var length: Length?
  /// In a row, the share of free width this spacer takes.
  public var weight: Double
  /// Creates a spacer.
  public init(length: Length? = nil, weight: Double = 1) {
    self.length = length
    self.weight = weight
  }
}

/// A horizontal rule.
public struct Rule: Hashable, Sendable {
  public enum Style: String, Hashable, Sendable, CaseIterable { case solid, dashed, double }
  public var style: Style
  /// Line thickness in points.
  public var thickness: Double
  /// Space above and below the line, in points.
  public var padding: Double
  /// Creates a rule.
  public init(style: Style = .solid, thickness: Double = 1, padding: Double = 3) {
    self.style = style
    self.thickness = thickness
    self.padding = padding
  }
}
