import ReceiptPrint

/// A file format `receipt` renders to.
public enum OutputFormat: String, Sendable, CaseIterable, CustomStringConvertible {
  /// A PDF preview: one page per receipt, paper width × cut length, text extractable.
  case pdf
  /// A PNG per page at the printer resolution: 1-bit (or 8-bit gray).
  case png
  /// PWG raster (IPP Everywhere printers): `black_1` (or `sgray_8`).
  case pwg
  /// CUPS raster (driver queues).
  case ras
  /// ESC/POS commands for a raw thermal printer: raster bands, cuts, drawer kicks.
  case escpos

  /// The format for a file name's extension, if known.
  public init?(fileExtension: String) {
    switch fileExtension.lowercased() {
    case "bin", "prn": self = .escpos
    default: self.init(rawValue: fileExtension.lowercased())
    }
  }

  /// The extension of a file in this format (`escpos` for ESC/POS).
  public var fileExtension: String { rawValue }

  /// Whether the format is printer dots (and so takes the 1-bit/gray choice).
  public var isRaster: Bool { self != .pdf }

  public var description: String { rawValue }

  /// The printers' format this file format is, when it is one (PNG is a preview per page).
  public var printPath: PrintPath? {
    switch self {
    case .pdf: .pdf
    case .png: nil
    case .pwg: .pwgRaster
    case .ras: .cupsRaster
    case .escpos: .escpos
    }
  }
}

/// Choices for raster output.
public struct RenderOptions: Sendable {
  /// 8-bit gray instead of 1-bit (PNG, PWG and CUPS raster; ESC/POS is always 1-bit).
  public var gray: Bool
  /// The printer model the output is for (its band height for ESC/POS).
  public var model: PrinterModel?
  /// Draw only the first this many pages of a PNG (nil: all; the daemon's preview answers with
  /// the first page only, so it draws only that).
  public var pageLimit: Int?

  /// Creates options.
  public init(gray: Bool = false, model: PrinterModel? = nil, pageLimit: Int? = nil) {
    self.gray = gray
    self.model = model
    self.pageLimit = pageLimit
  }
}
