public import Foundation
package import ReceiptLayout
public import ReceiptModel
package import ReceiptRender

/// Encodes raster pages as an Epson ePOS-Print XML document (`<epos-print>`), what an Epson
/// printer with Server Direct Print fetches (Epson ePOS-Print XML User's Manual, "XML Reference —
/// XML for Controlling Printer"):
/// - each page: `<image width="W" height="H" color="color_1" mode="mono">` with the page's
///   printable dots in base64 — 1 bit per dot, rows from the top, the highest bit of each byte
///   first, each row padded to whole bytes (the manual's `<image>`; `width` a multiple of 8 and
///   `align` left print fastest);
/// - then `<cut type="feed"/>` (feed to the cutter and cut) where the page is cut, or
///   `<feed line="1"/>` on a model without a cutter;
/// - a drawer kick after its page: `<pulse drawer="drawer_1"/>` (pin 2) or `drawer_2` (pin 5).
public struct EPOSPrintEncoder: Sendable {
  /// The ePOS-Print namespace of the `<epos-print>` element.
  public static let namespace = "http://www.epson-pos.com/schemas/2011/03/epos-print"
  /// The model's cutter: `none` feeds instead of cutting.
  public var cutter: String

  /// Creates an encoder.
  public init(cutter: String = "partial") {
    self.cutter = cutter
  }

  /// Encodes the raster pages of a receipt (`pages[i]` belongs to `receipt.pages[i % count]`).
  package func encode(_ pages: [RasterImage], receipt: LaidOutReceipt) -> Data {
    var xml = #"<epos-print xmlns="\#(Self.namespace)">"#
    for (index, page) in pages.enumerated() {
      let laidOut = receipt.pages[index % max(1, receipt.pages.count)]
      let columns = RasterRenderer.printableColumns(pageWidth: page.width, setup: receipt.pageSetup)
      let printable = page.cropped(x: columns.lowerBound, width: columns.count)
      xml += #"<image width="\#(printable.width)" height="\#(printable.height)" color="color_1" mode="mono">"#
      xml += Data(printable.data).base64EncodedString() + "</image>"
      xml += cutter == "none" ? #"<feed line="1"/>"# : #"<cut type="feed"/>"#
      for case .drawerKick(let pin) in laidOut.commands {
        xml += #"<pulse drawer="\#(pin == .pin5 ? "drawer_2" : "drawer_1")" time="pulse_100"/>"#
      }
    }
    return Data((xml + "</epos-print>").utf8)
  }
}
