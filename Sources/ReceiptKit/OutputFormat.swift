/// A file format `receipt` renders to.
public enum OutputFormat: String, Sendable, CaseIterable, CustomStringConvertible {
  /// A PDF preview: one page per receipt, paper width × cut length.
  case pdf

  /// The format for a file name's extension, if known.
  public init?(fileExtension: String) {
    self.init(rawValue: fileExtension.lowercased())
  }

  public var description: String { rawValue }
}
