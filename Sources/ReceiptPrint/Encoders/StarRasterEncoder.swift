public import Foundation
package import ReceiptLayout
public import ReceiptModel
package import ReceiptRender

/// Encodes raster pages for a Star printer in raster mode (Star Graphic mode, and the raster
/// mode of Star Line mode), so Star printers print without a Star CUPS driver. Commands from
/// Star's "STAR Line Mode Command Specifications" (raster mode chapter) and "STAR Graphic Mode
/// Command Specifications":
/// - `ESC @` initialise, `ESC * r A` enter raster mode, `ESC * r P 0 NUL` continuous page
///   length, `ESC * r F n NUL` the FF mode (n = 13 partial cut, 9 full cut, 2 feed only — with
///   the feed to the cutter);
/// - each row: `b n1 n2 d1…dk`, k = n1 + 256·n2 bytes of dots from the left margin (trailing
///   blank bytes are not sent; the printer feeds one dot row after it);
/// - blank rows: `ESC * r Y n NUL`, n dot rows in ASCII decimal;
/// - each page ends with `ESC FF NUL` (execute the FF mode: feed and cut) and `ESC * r B` (quit
///   raster mode); a drawer kick follows as `BEL` (drive peripheral 1, the drawer on pin 2) or
///   `SUB` (peripheral 2, pin 5).
public struct StarRasterEncoder: Sendable {
  /// The cut after each page: the page's own, or this (nil: feed only).
  public var finalCut: CutKind?
  /// The model's cutter: `none` feeds instead of cutting; `full` makes every cut full.
  public var cutter: String

  /// Creates an encoder.
  public init(finalCut: CutKind? = .partial, cutter: String = "partial") {
    self.finalCut = finalCut
    self.cutter = cutter
  }

  /// Encodes the raster pages of a receipt (`pages[i]` belongs to `receipt.pages[i]`).
  package func encode(_ pages: [RasterImage], receipt: LaidOutReceipt) -> Data {
    var out = Data([0x1B, 0x40])  // ESC @
    func command(_ letter: Character, _ n: Int) {  // ESC * r <letter> n NUL
      out += [0x1B, 0x2A, 0x72, letter.asciiValue!] + Array(String(n).utf8) + [0x00]
    }
    for (index, page) in pages.enumerated() {
      let laidOut = receipt.pages[index]
      let cut: CutKind? = cutter == "none" ? nil : (laidOut.cut ?? finalCut).map { cutter == "full" ? .full : $0 }
      out += [0x1B, 0x2A, 0x72, 0x41]  // ESC * r A
      command("P", 0)
      command("F", cut == nil ? 2 : cut == .full ? 9 : 13)
      let columns = RasterRenderer.printableColumns(pageWidth: page.width, setup: receipt.pageSetup)
      let printable = page.cropped(x: columns.lowerBound, width: columns.count)
      let bytesPerLine = printable.bytesPerLine
      let data = printable.data
      var blank = 0
      func flushBlank() {
        while blank > 0 {
          let n = min(blank, 255)
          command("Y", n)
          blank -= n
        }
      }
      for row in 0..<printable.height {
        let start = row * bytesPerLine
        guard let last = data[start..<(start + bytesPerLine)].lastIndex(where: { $0 != 0 }) else {
          blank += 1
          continue
        }
        flushBlank()
        let k = last - start + 1
        out += [0x62, UInt8(k & 0xFF), UInt8(k >> 8)]  // b n1 n2
        out += data[start..<(start + k)]
      }
      flushBlank()
      out += [0x1B, 0x0C, 0x00]  // ESC FF NUL: the FF mode (feed to the cutter, cut)
      out += [0x1B, 0x2A, 0x72, 0x42]  // ESC * r B
      for case .drawerKick(let pin) in laidOut.commands {
        out.append(pin == .pin5 ? 0x1A : 0x07)  // SUB: peripheral 2; BEL: peripheral 1
      }
    }
    return out
  }
}
