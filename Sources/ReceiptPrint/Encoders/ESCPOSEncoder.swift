public import Foundation
public import ReceiptLayout
public import ReceiptModel
public import ReceiptRender

/// Encodes raster pages as ESC/POS for a raw thermal printer: `ESC @`, the printable columns of
/// each page as `GS v 0` raster bands, drawer kicks (`ESC p`) where the page asks for them, and
/// `GS V` feed-and-cut after each page.
public struct ESCPOSEncoder: Sendable {
  /// Rows per `GS v 0` command (printers buffer a limited band).
  public var bandHeight: Int
  /// The cut after the last page (nil: no cut).
  public var finalCut: CutKind?

  /// Creates an encoder.
  public init(bandHeight: Int = 256, finalCut: CutKind? = .partial) {
    self.bandHeight = max(1, bandHeight)
    self.finalCut = finalCut
  }

  /// Encodes the raster pages of a receipt (`pages[i]` belongs to `receipt.pages[i]`).
  public func encode(_ pages: [RasterImage], receipt: LaidOutReceipt) -> Data {
    var out = Data([0x1B, 0x40])  // ESC @: initialise
    for (index, page) in pages.enumerated() {
      let columns = RasterRenderer.printableColumns(pageWidth: page.width, setup: receipt.pageSetup)
      let printable = page.cropped(x: columns.lowerBound, width: columns.count)
      let bytesPerLine = printable.bytesPerLine
      var y = 0
      while y < printable.height {
        let rows = min(bandHeight, printable.height - y)
        // GS v 0 m xL xH yL yH: m = 0 (normal), x in bytes, y in dots.
        out += [
          0x1D, 0x76, 0x30, 0x00, UInt8(bytesPerLine & 0xFF), UInt8(bytesPerLine >> 8), UInt8(rows & 0xFF),
          UInt8(rows >> 8),
        ]
        out += printable.data[(y * bytesPerLine)..<((y + rows) * bytesPerLine)]
        y += rows
      }
      let laidOut = receipt.pages[index]
      for case .drawerKick(let pin) in laidOut.commands {
        out += [0x1B, 0x70, pin == .pin2 ? 0 : 1, 25, 250]  // ESC p m t1 t2: 50 ms on, 500 ms off
      }
      if let cut = laidOut.cut ?? finalCut {
        out += [0x1D, 0x56, cut == .full ? 65 : 66, 0]  // GS V m n: feed to the cutter, then cut
      }
    }
    return out
  }
}
