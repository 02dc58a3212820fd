import Foundation
public import ReceiptModel

/// A point on a page, in points from the top-left corner (y grows downwards).
public struct Point: Hashable, Sendable {
  public var x: Double
  public var y: Double
  /// Creates a point.
  public init(x: Double, y: Double) {
    self.x = x
    self.y = y
  }
}

/// A rectangle on a page, in points.
public struct Rect: Hashable, Sendable {
  public var x: Double
  public var y: Double
  public var width: Double
  public var height: Double
  /// Creates a rectangle.
  public init(x: Double, y: Double, width: Double, height: Double) {
    (self.x, self.y, self.width, self.height) = (x, y, width, height)
  }
  public var maxX: Double { x + width }
  public var maxY: Double { y + height }
}

/// Ink on a thermal receipt is black; inverse text is white on a black band.
public enum Ink: Hashable, Sendable {
  case black, white
}

/// One glyph of a run: its id in the font, its position relative to the run's origin, and the
/// UTF-16 offset of its cluster in the run's ``GlyphRun/text``.
public struct Glyph: Hashable, Sendable {
  public var id: UInt32
  public var x: Double
  /// Downwards from the baseline.
  public var y: Double
  public var cluster: Int
}

/// A shaped run of glyphs in one font, ready to paint. Glyphs are in visual (left-to-right)
/// order; for right-to-left runs the clusters decrease along the glyphs.
public struct GlyphRun: Hashable, Sendable {
  public var font: FontFace
  /// The em size in points.
  public var size: Double
  public var horizontalScale: Double
  public var verticalScale: Double
  /// The baseline origin on the page.
  public var origin: Point
  public var glyphs: [Glyph]
  /// The source text of the run, in logical order (what a PDF reader should extract).
  public var text: String
  public var rightToLeft: Bool
  public var ink: Ink
  /// Total advance width in points.
  public var width: Double
}

/// A filled rectangle: rules, underlines, inverse bands.
public struct FilledRect: Hashable, Sendable {
  public var rect: Rect
  public var ink: Ink
  /// A dashed rule: dashes of this length along the width from the left edge, gaps of the same
  /// length, the last dash cut at the right edge. Documents draw it as one dashed stroke.
  public var dash: Double?

  public init(rect: Rect, ink: Ink, dash: Double? = nil) {
    self.rect = rect
    self.ink = ink
    self.dash = dash
  }

  /// The rectangles the fill covers: the dashes of a dashed rule, or the rectangle itself.
  public var pieces: [Rect] {
    guard let dash, dash > 0 else { return [rect] }
    var pieces: [Rect] = []
    var dx = 0.0
    while dx < rect.width {
      pieces.append(Rect(x: rect.x + dx, y: rect.y, width: min(dash, rect.width - dx), height: rect.height))
      dx += 2 * dash
    }
    return pieces
  }
}

/// A barcode as a matrix of modules in whole printer dots.
public struct PlacedBarcode: Hashable, Sendable {
  /// Top-left of the symbol (including quiet zones) on the page.
  public var rect: Rect
  /// Rows of modules, true = dark. Linear codes have one row stretched to the bar height.
  public var modules: [[Bool]]
  /// Height of each module row in points.
  public var rowHeights: [Double]
  /// Module width in points (a whole number of dots).
  public var moduleWidth: Double
  public var symbology: Symbology
  public var data: String
}

/// A raster image placed on the page: its decoded gray pixels and the rectangle (in whole
/// printer dots) they are scaled into. Renderers scale and dither it; none decodes anything.
public struct PlacedImage: Hashable, Sendable {
  public var rect: Rect
  public var image: GrayImage
  public var dither: DitherMethod
}

/// Something to paint on a page.
public enum LaidOutItem: Hashable, Sendable {
  case glyphs(GlyphRun)
  case rect(FilledRect)
  case barcode(PlacedBarcode)
  case image(PlacedImage)
}

/// A device command that takes no space (only ESC/POS and drivers act on it).
public enum DeviceCommand: Hashable, Sendable {
  case drawerKick(DrawerPin)
}

/// One continuous page: one receipt between cuts.
public struct LaidOutPage: Hashable, Sendable {
  /// The paper width in points (the page width of a PDF).
  public var width: Double
  /// The unrounded height of the content.
  public var contentHeight: Double
  /// `ceil(contentHeight) + top margin + bottom margin`: the page length.
  public var cutLength: Double
  public var items: [LaidOutItem]
  public var commands: [DeviceCommand]
  /// How the paper is cut after this page (nil: the last page, cut by the device default).
  public var cut: CutKind?
}

/// The output of layout: positioned pages that renderers paint without measuring anything.
public struct LaidOutReceipt: Hashable, Sendable {
  public var pageSetup: PageSetup
  public var pages: [LaidOutPage]
  public var title: String
  /// What layout had to substitute (a font family that is not installed).
  public var warnings: [String] = []
}
