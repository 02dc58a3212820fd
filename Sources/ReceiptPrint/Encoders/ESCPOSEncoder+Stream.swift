public import Foundation
package import ReceiptLayout
import ReceiptModel
package import ReceiptRender

extension ESCPOSEncoder {
  /// The encoder as a state machine fed rows as they are drawn: a page may arrive in bands of
  /// any height, and each call returns the bytes that are final so far (a raster band once it is
  /// whole, a feed once the blank run ends), so a printer can be sent the top of a receipt while
  /// the rest is drawn. ``ESCPOSEncoder/encode(_:receipt:)`` is this stream fed whole pages, so
  /// both give the same bytes.
  public struct Stream: Sendable {
    let encoder: ESCPOSEncoder
    let receipt: LaidOutReceipt
    let dpi: Int
    let unitsPerInch: Int
    /// Printable rows of the current page not sent yet: a blank run, or rows of a band.
    private var blankRows = 0
    /// The band's rows so far, `bytesPerLine` bytes each.
    private var bandRows: [UInt8] = []
    private var bandRowCount = 0
    /// The band's rows so far are blank past this many bytes (feeding blank rows only).
    private var bandInkedBytes = 0
    private var bytesPerLine = 0

    /// Starts a stream for a receipt's pages (`ESC @`, and `GS P` when feeds are counted in dots).
    package init(_ encoder: ESCPOSEncoder, receipt: LaidOutReceipt) {
      self.encoder = encoder
      self.receipt = receipt
      dpi = receipt.pageSetup.resolution.dpi
      switch encoder.motion {
      case .setToDots: unitsPerInch = ESCPOSEncoder.dotUnit(dpi: dpi)
      case .printerDefault(let perInch): unitsPerInch = perInch
      }
    }

    /// The bytes before the first page: initialise, and set the vertical motion unit.
    public func start() -> Data {
      var out = Data([0x1B, 0x40])  // ESC @: initialise
      if case .setToDots = encoder.motion {
        out += [0x1D, 0x50, 0, UInt8(unitsPerInch)]  // GS P x y: x = 0 keeps the horizontal default
      }
      return out
    }

    /// The next rows of the current page (the full page width, as drawn): the bytes now final.
    package mutating func append(_ rows: RasterImage) -> Data {
      let columns = RasterRenderer.printableColumns(pageWidth: rows.width, setup: receipt.pageSetup)
      let printable = rows.cropped(x: columns.lowerBound, width: columns.count)
      bytesPerLine = printable.bytesPerLine
      // Bytes gathered in an array and made `Data` once (appending `Data` to `Data` a band at a
      // time cost more than the bands).
      var out: [UInt8] = []
      // At most every row, a band header per band and a feed per blank run: reserved once
      // (grown by doubling, the array's copies were ~1 % of an ESC/POS receipt).
      out.reserveCapacity(printable.data.count + printable.height / 2 * 3 + 64)
      if bandRows.isEmpty { bandRows.reserveCapacity(encoder.bandHeight * bytesPerLine) }
      printable.data.withUnsafeBufferPointer { data in
        for row in 0..<printable.height {
          let line = UnsafeBufferPointer(rebasing: data[(row * bytesPerLine)..<((row + 1) * bytesPerLine)])
          // (Each flush only when it has something: appending an empty Data per row was a
          // tenth of encoding.)
          let inked = encoder.feedsBlankRows ? Self.inkedBytes(line) : line.count
          if inked == 0 {
            if bandRowCount > 0 { flushBand(into: &out) }
            blankRows += 1
            continue
          }
          if blankRows > 0 { flushFeed(into: &out) }
          bandInkedBytes = max(bandInkedBytes, inked)
          bandRows.append(contentsOf: line)
          bandRowCount += 1
          if bandRowCount == encoder.bandHeight { flushBand(into: &out) }
        }
      }
      return Data(out)
    }

    /// How many bytes of a row reach its last dot (0: the row is blank), looked at from the right
    /// eight bytes at a time.
    package static func inkedBytes(_ line: UnsafeBufferPointer<UInt8>) -> Int {
      guard let base = line.baseAddress else { return 0 }
      var end = line.count
      while end % 8 != 0 {
        end -= 1
        if base[end] != 0 { return end + 1 }
      }
      while end >= 8 {
        let word = UInt64(littleEndian: UnsafeRawPointer(base + end - 8).loadUnaligned(as: UInt64.self))
        // Little-endian: the highest nonzero byte of the word is the rightmost inked one.
        if word != 0 { return end - 8 + (63 - word.leadingZeroBitCount) / 8 + 1 }
        end -= 8
      }
      return 0
    }

    /// Ends page `index` of the receipt: what is left of it, its drawer kicks and its cut.
    public mutating func endPage(_ index: Int) -> Data {
      var bytes: [UInt8] = []
      flushBand(into: &bytes)
      flushFeed(into: &bytes)
      var out = Data(bytes)
      let laidOut = receipt.pages[index]
      for case .drawerKick(let pin) in laidOut.commands {
        // ESC p m t1 t2: m = 0 pin 2, 1 pin 5; 50 ms on, 500 ms off. `automatic` is pin 2 here:
        // PrintPath resolves it from the printer model first.
        out += [0x1B, 0x70, pin == .pin5 ? 1 : 0, 25, 250]
      }
      if let cut = laidOut.cut ?? encoder.finalCut {
        out += [0x1D, 0x56, cut == .full ? 65 : 66, 0]  // GS V m n: feed to the cutter, then cut
      }
      return out
    }

    /// The blank run so far as `ESC J` feeds.
    private mutating func flushFeed(into out: inout [UInt8]) {
      guard blankRows > 0 else { return }
      out += ESCPOSEncoder.feed(rows: blankRows, dpi: dpi, unitsPerInch: unitsPerInch)
      blankRows = 0
    }

    /// The rows so far as one `GS v 0` band, as wide as its rightmost dot: GS v 0 prints from the
    /// left margin, so the blank bytes to the right of a band need not be sent (the whole row
    /// when not feeding).
    private mutating func flushBand(into out: inout [UInt8]) {
      guard bandRowCount > 0 else { return }
      defer {
        bandRows.removeAll(keepingCapacity: true)
        bandRowCount = 0
        bandInkedBytes = 0
      }
      let (rows, stride) = (bandRowCount, bytesPerLine)
      let bandBytes = encoder.feedsBlankRows ? max(1, bandInkedBytes) : stride
      out += ESCPOSEncoder.bandHeader(bytes: bandBytes, rows: rows)
      for row in 0..<rows { out += bandRows[(row * stride)..<(row * stride + bandBytes)] }
    }
  }
}
