/// A CUPS destination and what receipt will do with it.
public struct PrinterQueue: Sendable, Codable, Equatable {
  public var name: String
  public var isDefault: Bool
  public var state: PrinterState
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

  /// What receipt sends it: raster at its resolution on its media, or raw ESC/POS (a raw queue
  /// has no resolution or media to ask; the page setup says).
  public var capabilities: PrinterCapabilities {
    path == .escpos
      ? PrinterCapabilities(format: .escpos)
      : PrinterCapabilities(format: path, resolution: preferredResolution, media: MediaSupport(names: media))
  }

  /// The queue's state, reasons and message.
  public var status: PrinterStatus {
    PrinterStatus(
      state: state, reasons: stateReasons.map(PrinterStateReason.init(rawValue:)), message: stateMessage,
      acceptingJobs: acceptingJobs)
  }
}
