public import Foundation
public import ReceiptLayout
public import ReceiptModel
public import ReceiptRender

/// Encodes raster pages as ESC/POS for a raw thermal printer: `ESC @`, the printable columns of
/// each page as `GS v 0` raster bands, blank rows as paper feeds (`ESC J n`, n dots in the
/// default vertical motion unit of one dot), drawer kicks (`ESC p`) where the page asks for
/// them, and `GS V` feed-and-cut after each page. The paper comes out exactly as long as the
/// preview: feeds replace blank rows one for one.
public struct ESCPOSEncoder: Sendable {
  /// Rows per `GS v 0` command (printers buffer a limited band).
  public var bandHeight: Int
  /// The cut after the last page (nil: no cut).
  public var finalCut: CutKind?
  /// Blank rows become `ESC J` feeds (3 bytes per 255 rows instead of a row of image data).
  public var feedsBlankRows: Bool

  /// Creates an encoder.
  public init(bandHeight: Int = 256, finalCut: CutKind? = .partial, feedsBlankRows: Bool = true) {
    self.bandHeight = max(1, bandHeight)
    self.finalCut = finalCut
    self.feedsBlankRows = feedsBlankRows
  }

  /// Encodes the raster pages of a receipt (`pages[i]` belongs to `receipt.pages[i]`).
  public func encode(_ pages: [RasterImage], receipt: LaidOutReceipt) -> Data {
    var out = Data([0x1B, 0x40])  // ESC @: initialise
    for (index, page) in pages.enumerated() {
      let columns = RasterRenderer.printableColumns(pageWidth: page.width, setup: receipt.pageSetup)
      let printable = page.cropped(x: columns.lowerBound, width: columns.count)
      let bytesPerLine = printable.bytesPerLine
      let data = printable.data
      func isBlank(_ row: Int) -> Bool {
        feedsBlankRows && data[(row * bytesPerLine)..<((row + 1) * bytesPerLine)].allSatisfy { $0 == 0 }
      }
      var y = 0
      while y < printable.height {
        if isBlank(y) {
          var blank = 1
          while y + blank < printable.height, isBlank(y + blank) { blank += 1 }
          y += blank
          while blank > 0 {
            let n = min(blank, 255)
            out += [0x1B, 0x4A, UInt8(n)]  // ESC J n: print and feed n dots
            blank -= n
          }
          continue
        }
        var rows = 1
        while rows < bandHeight, y + rows < printable.height, !isBlank(y + rows) { rows += 1 }
        // A band is as wide as its rightmost dot: GS v 0 prints from the left margin, so the
        // blank bytes to the right of a band need not be sent (the whole row when not feeding).
        var bandBytes = bytesPerLine
        if feedsBlankRows {
          bandBytes = 1
          for row in y..<(y + rows) {
            let start = row * bytesPerLine
            if let last = data[start..<(start + bytesPerLine)].lastIndex(where: { $0 != 0 }) {
              bandBytes = max(bandBytes, last - start + 1)
            }
          }
        }
        // GS v 0 m xL xH yL yH: m = 0 (normal), x in bytes, y in dots.
        out += [
          0x1D, 0x76, 0x30, 0x00, UInt8(bandBytes & 0xFF), UInt8(bandBytes >> 8), UInt8(rows & 0xFF), UInt8(rows >> 8),
        ]
        for row in y..<(y + rows) {
          out += data[(row * bytesPerLine)..<(row * bytesPerLine + bandBytes)]
        }
        y += rows
      }
      let laidOut = receipt.pages[index]
      for case .drawerKick(let pin) in laidOut.commands {
        // ESC p m t1 t2: m = 0 pin 2, 1 pin 5; 50 ms on, 500 ms off. `automatic` is pin 2 here:
        // PrintPath resolves it from the printer model first.
        out += [0x1B, 0x70, pin == .pin5 ? 1 : 0, 25, 250]
      }
      if let cut = laidOut.cut ?? finalCut {
        out += [0x1D, 0x56, cut == .full ? 65 : 66, 0]  // GS V m n: feed to the cutter, then cut
      }
    }
    return out
  }
}
