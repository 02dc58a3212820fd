public import Foundation
public import ReceiptModel
package import ReceiptRender

/// Turns ESC/POS bytes back into what a printer would do with them: raster pages split at cuts,
/// the cut kinds and drawer kicks. A faithful stand-in for a thermal printer in tests; unknown
/// commands are errors, so nothing is silently ignored.
package enum ESCPOSDecoder {
  /// What the printer did.
  package struct Result: Equatable, Sendable {
    /// One image per cut-off piece of paper (and a last one if bytes follow the last cut).
    package var pages: [RasterImage]
    /// The cut after each page (nil if the page was not cut).
    package var cuts: [CutKind?]
    /// Drawer kicks with the page (0-based) during which they came.
    package var drawerKicks: [(page: Int, pin: DrawerPin)]
    package var initialized: Bool

    package static func == (a: Result, b: Result) -> Bool {
      a.pages == b.pages && a.cuts == b.cuts && a.initialized == b.initialized
        && a.drawerKicks.map(\.page) == b.drawerKicks.map(\.page)
        && a.drawerKicks.map(\.pin) == b.drawerKicks.map(\.pin)
    }
  }

  /// A decoding error with the byte offset.
  package struct DecodeError: Error, CustomStringConvertible {
    package var offset: Int
    package var message: String
    package var description: String { "ESC/POS byte \(offset): \(message)" }
  }

  /// Decodes a stream. Bands narrower than the printer's line print from the left edge, the rest
  /// of the row blank: rows are padded to `bytesPerLine` (default: the widest band in the stream).
  /// `ESC J n` feeds n vertical motion units of the last `GS P` on a head of `dpi` (a feed before
  /// any `GS P` is an error: its unit is the printer's own default, not known here).
  package static func decode(_ data: Data, bytesPerLine: Int? = nil, dpi: Int = 203) throws -> Result {
    let b = [UInt8](data)
    var result = Result(pages: [], cuts: [], drawerKicks: [], initialized: false)
    var pageRows: [[[UInt8]]] = []
    var rows: [[UInt8]] = []
    var cuts: [CutKind?] = []
    var pendingFeed = 0
    var unitsPerInch: Int?
    var feedRemainder = 0
    func feed() {
      rows += Array(repeating: [], count: pendingFeed)
      pendingFeed = 0
    }
    func finishPage(cut: CutKind?) {
      feed()
      pageRows.append(rows)
      cuts.append(cut)
      rows = []
    }
    var i = 0
    func need(_ n: Int) throws {
      guard i + n <= b.count else { throw DecodeError(offset: i, message: "command truncated") }
    }
    while i < b.count {
      switch (b[i], i + 1 < b.count ? b[i + 1] : 0) {
      case (0x1B, 0x40):
        result.initialized = true
        unitsPerInch = nil
        i += 2
      case (0x1D, 0x76):
        try need(8)
        guard b[i + 2] == 0x30, b[i + 3] == 0 else { throw DecodeError(offset: i, message: "unsupported GS v mode") }
        let x = Int(b[i + 4]) | Int(b[i + 5]) << 8
        let y = Int(b[i + 6]) | Int(b[i + 7]) << 8
        feed()
        try need(8 + x * y)
        for row in 0..<y { rows.append(Array(b[(i + 8 + row * x)..<(i + 8 + (row + 1) * x)])) }
        i += 8 + x * y
      case (0x1B, 0x4A):
        try need(3)
        guard let units = unitsPerInch else {
          throw DecodeError(offset: i, message: "ESC J before GS P: the feed's unit is the printer's default")
        }
        let total = Int(b[i + 2]) * dpi + feedRemainder  // ESC J n: n vertical motion units
        pendingFeed += total / units
        feedRemainder = total % units
        i += 3
      case (0x1D, 0x50):
        try need(4)
        guard b[i + 3] != 0 else { throw DecodeError(offset: i, message: "GS P y = 0: the printer's default unit") }
        unitsPerInch = Int(b[i + 3])
        feedRemainder = 0
        i += 4
      case (0x1B, 0x70):
        try need(5)
        result.drawerKicks.append((pageRows.count, b[i + 2] == 0 ? .pin2 : .pin5))
        i += 5
      case (0x1D, 0x56):
        try need(4)
        guard b[i + 2] == 65 || b[i + 2] == 66 else { throw DecodeError(offset: i, message: "unsupported GS V mode") }
        finishPage(cut: b[i + 2] == 65 ? .full : .partial)
        i += 4
      default:
        throw DecodeError(
          offset: i, message: String(format: "unknown command 0x%02X 0x%02X", b[i], i + 1 < b.count ? b[i + 1] : 0))
      }
    }
    if !rows.isEmpty || pendingFeed > 0 { finishPage(cut: nil) }
    let width = bytesPerLine ?? pageRows.joined().map(\.count).max() ?? 0
    for (page, cut) in zip(pageRows, cuts) {
      var bytes: [UInt8] = []
      bytes.reserveCapacity(page.count * width)
      for row in page { bytes += row.prefix(width) + [UInt8](repeating: 0, count: max(0, width - row.count)) }
      result.pages.append(RasterImage(width: width * 8, height: page.count, bitsPerPixel: 1, data: bytes))
      result.cuts.append(cut)
    }
    return result
  }
}
