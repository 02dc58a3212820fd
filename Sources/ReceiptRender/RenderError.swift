/// Errors from rendering.
public enum RenderError: Error, Equatable, CustomStringConvertible, Sendable {
  /// cairo reported a failure (status text from `cairo_status_to_string`).
  case cairo(String)
  /// A font file could not be opened by FreeType for drawing.
  case font(path: String, reason: String)
  /// The output could not be written.
  case output(String)
  /// An image could not be decoded.
  case image(String)

  public var description: String {
    switch self {
    case .cairo(let message): return "cairo: \(message)"
    case .font(let path, let reason): return "cannot draw with font \(path): \(reason)"
    case .output(let message): return "cannot write output: \(message)"
    case .image(let message): return "image: \(message)"
    }
  }
}
