public import Foundation

/// The document formats receipt prints besides its own templates: what IPP clients send (phones,
/// tablets and desktops through AirPrint / IPP Everywhere, CUPS' driverless queues) and what
/// `receipt print FILE` takes. Each becomes pages of gray pixels (``DocumentPages``) that are
/// laid out on the roll (``DocumentLayout``) and printed like any receipt.
public enum DocumentFormat: String, Sendable, CaseIterable, Codable {
  case pdf = "application/pdf"
  /// PWG Raster (PWG 5102.4), what IPP Everywhere clients and CUPS send.
  case pwgRaster = "image/pwg-raster"
  /// Apple Raster, what iOS and macOS send to AirPrint printers.
  case urf = "image/urf"
  case jpeg = "image/jpeg"
  case png = "image/png"
  /// An order for a template (the `template` job attribute names it): printed as a receipt.
  case order = "application/vnd.receipt+json"

  /// What the bytes are, read from their first bytes (`application/octet-stream` jobs, files).
  public static func sniff(_ data: Data) -> DocumentFormat? {
    let head = Array(data.prefix(8))
    if head.starts(with: Array("%PDF-".utf8)) { return .pdf }
    if head.starts(with: Array("RaS2".utf8)) { return .pwgRaster }
    if head.starts(with: Array("UNIRAST".utf8)) { return .urf }
    if head.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
    if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
    if let first = data.first(where: { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }),
      first == UInt8(ascii: "{")
    {
      return .order
    }
    return nil
  }

  /// The format of a file by its extension, else by its bytes.
  public static func of(file path: String, data: Data) -> DocumentFormat? {
    switch URL(fileURLWithPath: path).pathExtension.lowercased() {
    case "pdf": .pdf
    case "pwg": .pwgRaster
    case "urf": .urf
    case "jpg", "jpeg": .jpeg
    case "png": .png
    default: sniff(data)
    }
  }

  /// Whether the format is a picture of pages (everything but an order).
  public var isPages: Bool { self != .order }
}
