/// Errors from layout: fonts that cannot be loaded, C library failures, bad barcode data.
public enum LayoutError: Error, Equatable, CustomStringConvertible, Sendable {
  /// No installed font could be found for a request.
  case fontNotFound(String)
  /// A font file exists but FreeType/HarfBuzz cannot read it.
  case fontUnreadable(path: String, reason: String)
  /// A font file named by path that is not a regular file in fontconfig's font directories or
  /// the templates directory (the same answer whether it exists or not).
  case fontFileRefused(String)
  /// An ICU call failed.
  case icu(function: String, status: String)
  /// fontconfig failed to initialise.
  case fontconfig(String)
  /// zint rejected barcode data (bad check digit, too long, wrong characters…).
  case barcode(symbology: String, data: String, reason: String)
  /// An image could not be decoded or is too large.
  case image(String)
  /// A block where it cannot be (a cut inside a row, a barcode wider than the paper…).
  case misplaced(String)
  /// An error of a block that came from a template, with its file:line:column.
  indirect case at(String, LayoutError)

  /// Whether the input is at fault (barcode data, an image), not the machine (fonts, ICU).
  public var isDataError: Bool {
    switch self {
    case .barcode, .image, .misplaced, .fontFileRefused: return true
    case .at(_, let inner): return inner.isDataError
    default: return false
    }
  }

  /// Runs `body`, prefixing its layout errors with `origin` (a template location) if there is one.
  static func located<T>(_ origin: String?, _ body: () throws -> T) throws -> T {
    do {
      return try body()
    } catch let error as LayoutError {
      guard let origin else { throw error }
      throw LayoutError.at(origin, error)
    }
  }

  public var description: String {
    switch self {
    case .fontNotFound(let request):
      return "no installed font matches \(request); install one (e.g. fonts-dejavu-core) or pick another family"
    case .fontUnreadable(let path, let reason):
      return "cannot read font \(path): \(reason); check the file or choose another font"
    case .fontFileRefused(let path):
      return
        "font file \(path) is not a font file in fontconfig's font directories (fc-list) or the templates directory; "
        + "name an installed family, or put the font file in the templates directory"
    case .icu(let function, let status):
      return "ICU \(function) failed: \(status)"
    case .fontconfig(let message):
      return "fontconfig: \(message)"
    case .barcode(let symbology, let data, let reason):
      let shown = data.count > 40 ? "\(data.prefix(40))…\" (\(data.count) characters)" : "\(data)\""
      return "\(symbology) barcode cannot encode \"\(shown): \(reason)"
    case .image(let message):
      return "image: \(message)"
    case .misplaced(let message):
      return message
    case .at(let origin, let error):
      return "\(origin): \(error)"
    }
  }
}
