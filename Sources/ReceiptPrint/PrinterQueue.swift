/// How a receipt reaches a queue.
public enum PrintPath: String, Sendable, Codable, CaseIterable {
  /// IPP Everywhere / driverless: PWG raster at the printer's resolution.
  case pwgRaster = "pwg-raster"
  /// A PPD raster driver (Epson, Star): CUPS raster.
  case cupsRaster = "cups-raster"
  /// A raw queue to an ESC/POS printer.
  case escpos

  /// The document format sent for the path.
  public var mimeType: String {
    switch self {
    case .pwgRaster: return "image/pwg-raster"
    case .cupsRaster: return "application/vnd.cups-raster"
    case .escpos: return "application/vnd.cups-raw"
    }
  }
}

/// A CUPS destination and what receipt will do with it.
public struct PrinterQueue: Sendable, Codable, Equatable {
  public var name: String
  public var isDefault: Bool
  /// idle, processing or stopped.
  public var state: String
  public var acceptingJobs: Bool
  public var stateReasons: [String]
  public var stateMessage: String
  public var makeAndModel: String
  public var deviceURI: String
  /// document-format-supported.
  public var formats: [String]
  /// Raster resolutions the printer takes (dots per inch).
  public var resolutions: [Int]
  /// media-supported (roll sizes and custom ranges).
  public var media: [String]
  /// The output path receipt chooses.
  public var path: PrintPath

  /// The path for a set of document formats: PWG raster if accepted, else CUPS raster, else raw.
  public static func path(for formats: [String]) -> PrintPath {
    if formats.contains("image/pwg-raster") { return .pwgRaster }
    if formats.contains("application/vnd.cups-raster") { return .cupsRaster }
    return .escpos
  }

  /// The resolution to render at: 203 dpi when the printer takes it, else its first.
  public var preferredResolution: Int? {
    resolutions.contains(203) ? 203 : resolutions.first
  }
}

/// Where a job ended.
public struct JobStatus: Sendable, Equatable {
  public var id: Int
  /// pending, held, processing, stopped, canceled, aborted or completed.
  public var state: String
  public var reasons: [String]
  public var message: String
  /// Only `completed` means printed.
  public var isFinal: Bool { ["completed", "canceled", "aborted", "stopped"].contains(state) }
}
