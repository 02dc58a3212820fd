public import Foundation

/// How a gray image becomes black and white dots.
public enum DitherMethod: String, Hashable, Sendable, CaseIterable {
  case threshold
  /// Ordered 8×8 Bayer matrix.
  case ordered
  case floydSteinberg = "floyd-steinberg"
  case atkinson
}

/// A raster image (PNG or JPEG bytes), scaled to a width and converted to dots when printed.
public struct ImageBlock: Hashable, Sendable {
  /// The encoded image file.
  public var data: Data
  /// The printed width; nil for the image's natural size at the printer resolution, capped at the
  /// content width.
  public var width: Length?
  public var alignment: TextAlignment
  public var dither: DitherMethod
  /// Where the block comes from (a template's file:line:column), for error messages.
  public var origin: String?
  /// Creates an image block.
  public init(
    data: Data, width: Length? = nil, alignment: TextAlignment = .center, dither: DitherMethod = .floydSteinberg,
    origin: String? = nil
  ) {
    self.origin = origin
    self.data = data
    self.width = width
    self.alignment = alignment
    self.dither = dither
  }
}

/// A barcode symbology supported through zint.
public enum Symbology: String, Hashable, Sendable, CaseIterable {
  case ean13, ean8, upca, code128, gs1_128 = "gs1-128", code39, itf, qr, pdf417, datamatrix, aztec

  /// Whether the symbology is two-dimensional (matrix or stacked).
  public var isTwoDimensional: Bool {
    switch self {
    case .qr, .pdf417, .datamatrix, .aztec: return true
    default: return false
    }
  }
}

/// A barcode: symbology, data and size in whole printer dots.
public struct Barcode: Hashable, Sendable {
  public var symbology: Symbology
  public var data: String
  /// Width of one module (narrowest bar or one QR cell) in printer dots; at least 2.
  public var moduleDots: Int
  /// Bar height for linear codes; ignored by 2D codes.
  public var height: Length
  /// Print the human-readable text under linear codes.
  public var humanReadable: Bool
  public var alignment: TextAlignment
  /// Where the barcode comes from (a template's file:line:column), for error messages.
  public var origin: String?
  /// Creates a barcode.
  public init(
    _ symbology: Symbology, data: String, moduleDots: Int = 2, height: Length = .mm(10),
    humanReadable: Bool = true, alignment: TextAlignment = .center, origin: String? = nil
  ) {
    self.origin = origin
    self.symbology = symbology
    self.data = data
    self.moduleDots = moduleDots
    self.height = height
    self.humanReadable = humanReadable
    self.alignment = alignment
  }
}
