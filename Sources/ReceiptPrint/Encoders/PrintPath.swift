public import Foundation
package import ReceiptLayout
import ReceiptModel
package import ReceiptRender

/// The formats receipt sends to printers, and the one place their encoder is chosen (printing
/// and `receipt render -o x.pwg|.ras|.bin` both encode here). To add an output format for
/// printers, add a case and its encoder in `Encoders/`.
public enum PrintPath: String, Sendable, Codable, CaseIterable {
  /// IPP Everywhere / driverless: PWG raster at the printer's resolution.
  case pwgRaster = "pwg-raster"
  /// A PPD raster driver (Epson, Star): CUPS raster.
  case cupsRaster = "cups-raster"
  /// A raw thermal printer (a raw CUPS queue, a socket, a device): ESC/POS, or Star raster
  /// when the printer model's command set is `star`.
  case escpos
  /// A PDF per receipt (directory printers, previews).
  case pdf
  /// Epson ePOS-Print XML with the receipt as raster images (printers that fetch their jobs by
  /// Server Direct Print).
  case eposPrint = "epos-print"
  /// One 1-bit PNG of the printable dots (printers that fetch a picture: CloudPRNT `image/png`);
  /// a receipt of one page and one copy only.
  case png

  /// The document format sent for the path.
  public var mimeType: String {
    switch self {
    case .pwgRaster: "image/pwg-raster"
    case .cupsRaster: "application/vnd.cups-raster"
    case .escpos: "application/vnd.cups-raw"
    case .pdf: "application/pdf"
    case .eposPrint: "text/xml"
    case .png: "image/png"
    }
  }

  /// Draws a laid-out receipt (Render) and encodes it for this path: `copies` times every page,
  /// 1-bit unless `gray` (ESC/POS is always 1-bit), in bands the printer `model` takes. What
  /// drawing keeps between receipts goes to `caches` (the engine's context; the engine always
  /// passes its own).
  package func encode(
    _ receipt: LaidOutReceipt, copies: Int = 1, gray: Bool = false, model: PrinterModel? = nil,
    caches: RenderCaches = .process
  ) throws -> Data {
    let copies = max(1, copies)
    var all = receipt
    all.pages = Array(repeating: receipt.pages, count: copies).flatMap { $0 }
    switch self {
    case .pdf:
      return try PDFRenderer(caches: caches).render(all)
    case .pwgRaster, .cupsRaster:
      // Each page is drawn once; copies repeat its dots.
      try RasterRenderer(gray: gray, caches: caches).checkBudget(receipt, copies: copies)
      let pages = try RasterRenderer(gray: gray, caches: caches).render(receipt)
      let allPages = Array(repeating: pages, count: copies).flatMap { $0 }
      return try PWGRasterWriter(mode: self == .pwgRaster ? .pwg : .cups).encode(allPages, setup: receipt.pageSetup)
    case .png:
      let pages = try RasterRenderer(printableOnly: true, caches: caches).render(receipt)
      guard pages.count == 1, copies == 1, let page = pages.first else {
        throw PrintError.encoding("a PNG holds one page and one copy; this receipt has \(pages.count) × \(copies)")
      }
      let columns = RasterRenderer.printableColumns(pageWidth: page.width, setup: receipt.pageSetup)
      return try PNGWriter().encode(
        page.cropped(x: columns.lowerBound, width: columns.count), dpi: receipt.pageSetup.resolution.dpi)
    case .eposPrint:
      let renderer = RasterRenderer(printableOnly: true, caches: caches)
      try renderer.checkBudget(receipt, copies: copies)
      let pages = Array(repeating: try renderer.render(receipt), count: copies).flatMap { $0 }
      return EPOSPrintEncoder(cutter: model?.cutter ?? "partial").encode(
        pages, receipt: try Self.deviceCommands(all, model: model))
    case .escpos:
      // Raw printers are sent the printable columns (both encoders take those and no others).
      let renderer = RasterRenderer(printableOnly: true, caches: caches)
      try renderer.checkBudget(receipt, copies: copies)
      let pages = Array(repeating: try renderer.render(receipt), count: copies).flatMap { $0 }
      let all = try Self.deviceCommands(all, model: model)
      if model?.commandSet == "star" {
        return StarRasterEncoder(cutter: model?.cutter ?? "partial").encode(pages, receipt: all)
      }
      return ESCPOSEncoder(
        bandHeight: model?.bandHeight ?? 256, finalCut: Self.finalCut(model), motion: model?.motion ?? .setToDots
      ).encode(pages, receipt: all)
    }
  }
}

extension PrintPath {
  /// The cut after the last page: partial, full on a model that only cuts fully, none without a
  /// cutter.
  static func finalCut(_ model: PrinterModel?) -> CutKind? {
    switch model?.cutter {
    case "none": nil
    case "full": .full
    default: .partial
    }
  }

  /// The receipt with drawer kicks on the model's pins (``drawerPins(_:model:)``) and its cuts as
  /// the model's cutter makes them (none, or full only).
  static func deviceCommands(_ receipt: LaidOutReceipt, model: PrinterModel?) throws -> LaidOutReceipt {
    var receipt = try drawerPins(receipt, model: model)
    if model?.cutter == "none" {
      for i in receipt.pages.indices { receipt.pages[i].cut = nil }
    } else if model?.cutter == "full" {
      for i in receipt.pages.indices where receipt.pages[i].cut != nil { receipt.pages[i].cut = .full }
    }
    return receipt
  }

  /// The receipt with each drawer kick on a pin the printer has: `<drawer/>` without a pin kicks
  /// the model's drawer (its first pin); a pin the model does not have, or any kick for a model
  /// without a drawer connector, is an error. Without a model, pin 2 (the usual drawer).
  static func drawerPins(_ receipt: LaidOutReceipt, model: PrinterModel?) throws -> LaidOutReceipt {
    var receipt = receipt
    for index in receipt.pages.indices {
      receipt.pages[index].commands = try receipt.pages[index].commands.map { command in
        guard case .drawerKick(let pin) = command else { return command }
        guard let model else { return .drawerKick(pin == .automatic ? .pin2 : pin) }
        guard let first = model.drawerPins.first.flatMap(DrawerPin.init(rawValue:)) else {
          throw PrintError.encoding(
            "the printer model \(model.name) has no cash drawer connector; remove <drawer> or choose the model")
        }
        if pin == .automatic { return .drawerKick(first) }
        guard model.drawerPins.contains(pin.rawValue) else {
          throw PrintError.encoding(
            "the printer model \(model.name) has drawer pin \(model.drawerPins.map(String.init).joined(separator: " and ")), "
              + "not \(pin.rawValue); write <drawer/> for its drawer")
        }
        return command
      }
    }
    return receipt
  }
}

extension PrintPath {
  /// Rows drawn at a time when streaming: about 32 mm at 203 dpi, the band a thermal printer
  /// buffers (`GS v 0` bands are at most the model's band height anyway).
  public static let streamRows = 256

  /// Whether a receipt for `model` can go to a printer as it is drawn (ESC/POS; Star raster
  /// needs each page whole).
  public static func streams(model: PrinterModel?) -> Bool { model?.commandSet != "star" }

  /// Draws and encodes a receipt as ESC/POS a band of `rows` rows at a time, handing the bytes
  /// of each band to `send` as soon as they are final: the printer can start on the top of a
  /// long receipt before its end is drawn. Concatenated, the bytes are exactly
  /// `PrintPath.escpos.encode(receipt, model: model)` (one copy). Checks the raster budget
  /// first, so nothing is sent for a receipt that cannot be drawn.
  package static func streamESCPOS(
    _ receipt: LaidOutReceipt, model: PrinterModel?, rows: Int = streamRows, caches: RenderCaches = .process,
    send: (Data) throws -> Void
  ) throws {
    precondition(streams(model: model), "Star raster is sent whole pages")
    let renderer = RasterRenderer(printableOnly: true, caches: caches)
    try renderer.checkBudget(receipt)
    let commands = try deviceCommands(receipt, model: model)
    let encoder = ESCPOSEncoder(
      bandHeight: model?.bandHeight ?? 256, finalCut: finalCut(model), motion: model?.motion ?? .setToDots)
    var stream = ESCPOSEncoder.Stream(encoder, receipt: commands)
    try send(stream.start())
    for index in receipt.pages.indices {
      try renderer.render(receipt, page: index, bands: rows) { _, band in
        let bytes = stream.append(band)
        if !bytes.isEmpty { try send(bytes) }
      }
      try send(stream.endPage(index))
    }
  }
}
