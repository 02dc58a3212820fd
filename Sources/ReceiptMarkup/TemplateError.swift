/// A template or data problem, with where it is (file:line:column) and how to fix it.
public struct TemplateError: Error, CustomStringConvertible, Equatable, Sendable {
  /// The template file (or "order" for data errors).
  public var file: String
  public var line: Int
  public var column: Int
  public var message: String
  /// Warnings found before the error while binding (they often explain it).
  public var warnings: [String] = []

  /// Creates an error; line and column 0 mean "the whole file".
  public init(file: String, line: Int = 0, column: Int = 0, message: String) {
    self.file = file
    self.line = line
    self.column = column
    self.message = message
  }

  init(_ location: SourceLocation, _ message: String) {
    self.init(file: location.file, line: location.line, column: location.column, message: message)
  }

  public var description: String {
    line > 0 ? "\(file):\(line):\(column): \(message)" : "\(file): \(message)"
  }
}

/// Where something is in a template.
public struct SourceLocation: Hashable, Sendable, CustomStringConvertible {
  public var file: String
  public var line: Int
  public var column: Int
  public var description: String { "\(file):\(line):\(column)" }
}

/// The closest of some names to a misspelt one (for "did you mean …"), if any is close.
func suggestion(for name: String, among names: [String]) -> String? {
  func distance(_ a: [Character], _ b: [Character]) -> Int {
    var previous = Array(0...b.count)
    for (i, ca) in a.enumerated() {
      var current = [i + 1]
      for (j, cb) in b.enumerated() {
        current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (ca == cb ? 0 : 1)))
      }
      previous = current
    }
    return previous[b.count]
  }
  let scored = names.map { ($0, distance(Array(name.lowercased()), Array($0.lowercased()))) }
  guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= max(2, name.count / 3) else { return nil }
  return best.0
}

/// "unknown X 'y'" with "; did you mean 'z'?" when one is close.
func unknown(_ kind: String, _ name: String, among names: [String]) -> String {
  var message = "unknown \(kind) '\(name)'"
  if let near = suggestion(for: name, among: names) { message += "; did you mean '\(near)'?" }
  return message
}
