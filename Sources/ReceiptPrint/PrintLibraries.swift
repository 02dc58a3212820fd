internal import CCups
import ReceiptModel

/// Versions of the C libraries printing runs on.
public enum PrintLibraries {
  /// libcups' version, from the `CUPS_VERSION_*` constants of its headers (libcups has no call
  /// that returns its version; ``pwgRasterSize(widthMillimetres:lengthMillimetres:dpi:)`` proves
  /// the library is callable).
  public static var cups: String {
    "\(CUPS_VERSION_MAJOR).\(CUPS_VERSION_MINOR).\(CUPS_VERSION_PATCH)"
  }

  /// The raster size in dots libcups computes for a media size (`pwgMediaForSize` and
  /// `cupsRasterInitPWGHeader`), or nil if libcups rejects it.
  public static func pwgRasterSize(widthMillimetres: Double, lengthMillimetres: Double, dpi: Int) -> (
    width: Int, height: Int
  )? {
    guard
      let media = LibCUPS.pwgMediaForSize(
        Int32(clamping: (widthMillimetres * 100).clampedInt()), Int32(clamping: (lengthMillimetres * 100).clampedInt()))
    else { return nil }
    var header = cups_page_header2_t()
    guard LibCUPS.cupsRasterInitPWGHeader(&header, media, "black_1", Int32(dpi), Int32(dpi), "one-sided", nil) != 0
    else {
      return nil
    }
    return (Int(header.cupsWidth), Int(header.cupsHeight))
  }
}
