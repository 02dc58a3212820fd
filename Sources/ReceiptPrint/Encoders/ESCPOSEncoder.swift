public import Foundation
package import ReceiptLayout
public import ReceiptModel
package import ReceiptRender

/// Encodes raster pages as ESC/POS for a raw thermal printer: `ESC @`, the motion units (`GS P`),
/// the printable columns of each page as `GS v 0` raster bands, blank rows as paper feeds
/// (`ESC J n`), drawer kicks (`ESC p`) where the page asks for them, and `GS V` feed-and-cut after
/// each page. The paper comes out exactly as long as the preview: feeds replace blank rows one for
/// one, measured in the vertical motion unit the encoder set (or the printer's own, converted).
///
/// `ESC J n` feeds n *vertical motion units*, not n dots: Epson's TM-T88 line defaults to
/// 1/360 inch (half a dot row of its 180-dpi head; TM-T88III specification, `GS P` [Default]
/// x = 180, y = 360), so a feed counted in dots prints blank space at half height there.
public struct ESCPOSEncoder: Sendable {
  /// How feeds are measured.
  public enum Motion: Sendable, Hashable {
    /// `GS P 0 y` after `ESC @` sets the vertical unit to the dot pitch (1/dpi inch; for heads
    /// over 255 dpi, a whole number of dots), so feeds count dot rows on any printer that takes
    /// `GS P`. `ESC @` resets it, so it is sent after every initialisation.
    case setToDots
    /// The printer does not take `GS P`: feeds are converted into its own vertical unit,
    /// `perInch` units per inch (a multiple or a divisor of the head's dpi).
    case printerDefault(perInch: Int)
  }

  /// Rows per `GS v 0` command (printers buffer a limited band).
  public var bandHeight: Int
  /// The cut after the last page (nil: no cut).
  public var finalCut: CutKind?
  /// Blank rows become `ESC J` feeds (3 bytes per 255 units instead of a row of image data).
  public var feedsBlankRows: Bool
  /// How feeds are measured.
  public var motion: Motion

  /// Creates an encoder.
  public init(
    bandHeight: Int = 256, finalCut: CutKind? = .partial, feedsBlankRows: Bool = true, motion: Motion = .setToDots
  ) {
    self.bandHeight = max(1, bandHeight)
    self.finalCut = finalCut
    self.feedsBlankRows = feedsBlankRows
    self.motion = motion
  }

  /// The vertical unit feeds are counted in, in units per inch, for a head of `dpi`: the dot
  /// pitch itself when it fits `GS P`'s one byte, else the finest whole number of dots that does.
  static func dotUnit(dpi: Int) -> Int {
    var rowsPerUnit = 1
    while dpi / rowsPerUnit > 255 || dpi % rowsPerUnit != 0 { rowsPerUnit += 1 }
    return dpi / rowsPerUnit
  }

  /// Encodes the raster pages of a receipt (`pages[i]` belongs to `receipt.pages[i]`): the
  /// ``Stream`` fed whole pages.
  package func encode(_ pages: [RasterImage], receipt: LaidOutReceipt) -> Data {
    var stream = Stream(self, receipt: receipt)
    var out = stream.start()
    for (index, page) in pages.enumerated() {
      out += stream.append(page)
      out += stream.endPage(index)
    }
    return out
  }

  /// `GS v 0 m xL xH yL yH`: m = 0 (normal), x in bytes, y in dots.
  static func bandHeader(bytes: Int, rows: Int) -> [UInt8] {
    [0x1D, 0x76, 0x30, 0x00, UInt8(bytes & 0xFF), UInt8(bytes >> 8), UInt8(rows & 0xFF), UInt8(rows >> 8)]
  }

  /// `rows` blank dot rows as `ESC J` feeds in the vertical unit; rows a unit cannot express
  /// (a unit of several dots) go as a blank band.
  static func feed(rows: Int, dpi: Int, unitsPerInch: Int) -> [UInt8] {
    var out: [UInt8] = []
    var units: Int
    var leftover = 0
    if unitsPerInch % dpi == 0 {
      units = rows * (unitsPerInch / dpi)
    } else {
      let rowsPerUnit = dpi / unitsPerInch
      units = rows / rowsPerUnit
      leftover = rows % rowsPerUnit
    }
    while units > 0 {
      let n = min(units, 255)
      out += [0x1B, 0x4A, UInt8(n)]  // ESC J n: print and feed n vertical motion units
      units -= n
    }
    if leftover > 0 {
      out += bandHeader(bytes: 1, rows: leftover)
      out += [UInt8](repeating: 0, count: leftover)
    }
    return out
  }
}
