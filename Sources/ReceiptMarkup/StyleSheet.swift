import Foundation

/// Named property sets applied with `class="a, b"`, from JSON style sheets: external
/// (`<?properties receipt-styles?>` reads `receipt-styles.json`) or inline
/// (`<?properties {"title": {"size": 14}}?>`). Later sheets override earlier ones; explicit
/// attributes override classes.
struct StyleSheet {
  private(set) var classes: [String: [String: String]] = [:]

  mutating func merge(json data: Data, source: String, at location: SourceLocation) throws {
    let parsed: JSONValue
    do {
      parsed = try JSONParser.parse(data, name: source)
    } catch let error as TemplateError {
      throw TemplateError(location, "style sheet \(error)")
    }
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
  func properties(for classList: String, at location: SourceLocation) throws -> [String: String] {
    var result: [String: String] = [:]
    for name in classList.split(whereSeparator: { $0 == "," || $0.isWhitespace }).map(String.init) {
      guard let properties = classes[name] else {
        throw TemplateError(location, unknown("class", name, among: Array(classes.keys)))
      }
      result.merge(properties) { _, new in new }
    }
    return result
  }
}
