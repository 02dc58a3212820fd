/// Errors from rendering.
public enum RenderError: Error, Equatable, CustomStringConvertible, Sendable {
  /// cairo reported a failure (status text from `cairo_status_to_string`).
  case cairo(String)
  /// A font file could not be opened by FreeType for drawing.
  case font(path: String, reason: String)
  /// The output could not be written.
  case output(String)
  /// A page is larger than cairo and raster formats can hold (32,767 dots a side).
  case tooLarge(width: Int, height: Int)
  /// Drawing the receipt would take more dots than the bounds allow (``RasterRenderer/maxRasterBytes``).
  case tooManyDots(String)
  /// A document to draw (a PDF) that cannot be read, or is over a bound.
  case document(String)

  public var description: String {
    switch self {
    case .cairo(let message): return "cairo: \(message)"
    case .font(let path, let reason): return "cannot draw with font \(path): \(reason)"
    case .output(let message): return "cannot write output: \(message)"
    case .tooManyDots(let message), .document(let message): return message
    case .tooLarge(let width, let height):
      return
        "the page is \(width)×\(height) dots; raster output holds at most 32767 a side (shorten the receipt or lower --dpi)"
    }
  }
}
