import Foundation

/// Named property sets applied with `class="a, b"`, from JSON style sheets: external
/// (`<?properties receipt-styles?>` reads `receipt-styles.json`) or inline
/// (`<?properties {"title": {"size": 14}}?>`). Later sheets override earlier ones; explicit
/// attributes override classes.
struct StyleSheet {
  private(set) var classes: [String: [String: String]] = [:]
  /// Class lists already resolved (a repeated row asks for the same list for every item).
  private var resolved: [String: [String: String]] = [:]

  mutating func merge(json data: Data, source: String, at location: SourceLocation) throws {
    try merge(try Self.parse(data, source: source, at: location), source: source, at: location)
  }

  /// A style sheet file's JSON, parsed (kept by ``ParsedFileCache`` while the file is unchanged).
  static func parse(_ data: Data, source: String, at location: SourceLocation) throws -> JSONValue {
    do {
      return try JSONParser.parse(data, name: source)
    } catch let error as TemplateError {
      throw TemplateError(location, "style sheet \(error)")
    }
  }

  /// Merges a parsed style sheet: its classes override earlier ones property by property.
  mutating func merge(_ parsed: JSONValue, source: String, at location: SourceLocation) throws {
    resolved = [:]
    guard case .object(let sheet) = parsed else {
      throw TemplateError(
        location, "style sheet \(source) must be a JSON object of classes, each an object of properties")
    }
    for (name, value) in sheet {
      guard case .object(let properties) = value else {
        throw TemplateError(location, "class '\(name)' in \(source) must be an object of properties")
      }
      var values = classes[name] ?? [:]
      for (key, value) in properties {
        switch value {
        case .string, .number, .bool: values[key] = value.text
        default:
          throw TemplateError(
            location, "property '\(key)' of class '\(name)' in \(source) must be a string, number or boolean")
        }
      }
      classes[name] = values
    }
  }

  /// The properties of the classes in a `class` attribute, in order: names separated by commas
  /// or spaces (`money, small` or `money small`, as in CSS); later classes win.
  mutating func properties(for classList: String, at location: SourceLocation) throws -> [String: String] {
    if let known = resolved[classList] { return known }
    var result: [String: String] = [:]
    for name in classList.split(whereSeparator: { $0 == "," || $0.isWhitespace }).map(String.init) {
      guard let properties = classes[name] else {
        throw TemplateError(location, unknown("class", name, among: Array(classes.keys)))
      }
      result.merge(properties) { _, new in new }
    }
    if resolved.count < 256 { resolved[classList] = result }
    return result
  }
}
