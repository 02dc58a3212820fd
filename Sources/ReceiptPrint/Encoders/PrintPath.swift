public import Foundation
public import ReceiptLayout
import ReceiptModel
import ReceiptRender

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

  /// The document format sent for the path.
  public var mimeType: String {
    switch self {
    case .pwgRaster: "image/pwg-raster"
    case .cupsRaster: "application/vnd.cups-raster"
    case .escpos: "application/vnd.cups-raw"
    case .pdf: "application/pdf"
    }
  }

  /// Draws a laid-out receipt (Render) and encodes it for this path: `copies` times every page,
  /// 1-bit unless `gray` (ESC/POS is always 1-bit), in bands the printer `model` takes.
  public func encode(_ receipt: LaidOutReceipt, copies: Int = 1, gray: Bool = false, model: PrinterModel? = nil)
    throws -> Data
  {
    let copies = max(1, copies)
    var all = receipt
    all.pages = Array(repeating: receipt.pages, count: copies).flatMap { $0 }
    switch self {
    case .pdf:
      return try PDFRenderer().render(all)
    case .pwgRaster, .cupsRaster:
      // Each page is drawn once; copies repeat its dots.
      try RasterRenderer(gray: gray).checkBudget(receipt, copies: copies)
      let pages = try RasterRenderer(gray: gray).render(receipt)
      let allPages = Array(repeating: pages, count: copies).flatMap { $0 }
      return try PWGRasterWriter(mode: self == .pwgRaster ? .pwg : .cups).encode(allPages, setup: receipt.pageSetup)
    case .escpos:
      try RasterRenderer().checkBudget(receipt, copies: copies)
      let pages = Array(repeating: try RasterRenderer().render(receipt), count: copies).flatMap { $0 }
      var all = try Self.drawerPins(all, model: model)
      if model?.cutter == "none" {
        for i in all.pages.indices { all.pages[i].cut = nil }
      } else if model?.cutter == "full" {
        for i in all.pages.indices where all.pages[i].cut != nil { all.pages[i].cut = .full }
      }
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
