import Foundation
import ReceiptModel

/// Attribute vocabularies (the model's property names, kebab-cased).
enum Vocabulary {
  static let textStyle: Set<String> = [
    "font", "size", "bold", "italic", "underline", "strikethrough", "inverse", "scale", "scale-x", "scale-y",
    "letter-spacing", "language", "class",
  ]
  static let paragraph: Set<String> = [
    "align", "line-spacing", "paragraph-spacing", "indent", "first-line-indent", "tail-indent", "tabs", "tab-interval",
    "tab-gap", "wrap",
    "max-lines", "direction", "hyphens",
  ]
  static let cell: Set<String> = ["weight", "width", "align"]
  static let elements: [String: Set<String>] = [
    "receipt": textStyle.union(paragraph).union([
      "paper", "dpi", "margin", "margin-top", "margin-bottom", "margin-left", "margin-right", "title", "locale",
      "currency", "timezone", "rounding", "digits", "root",
    ]),
    "fragment": [],
    "column": textStyle.union(paragraph).union(["spacing", "grid"]),
    "row": textStyle.union(paragraph).union(["spacing", "valign"]),
    "text": textStyle.union(paragraph),
    "spacer": ["height", "weight", "class"],
    "rule": ["style", "thickness", "padding", "class"],
    "image": ["src", "width", "align", "dither", "class"],
    "barcode": ["type", "data", "module", "height", "hri", "align", "class"],
    "qrcode": ["data", "module", "align", "class"],
    "feed": ["length"],
    "cut": ["type"],
    "drawer": ["pin"],
    "repeat": ["items", "as"],
    "if": ["test"],
    "elseif": ["test"],
    "else": [],
    "include": ["template"],
  ]
  /// What each element takes as a cell of a row: its own attributes and the cell's (made once,
  /// not per element of every row).
  static let cellElements = elements.mapValues { $0.union(cell) }
  static let inline: [String: Set<String>] = [
    "b": ["class"], "i": ["class"], "u": ["class"], "s": ["class"], "inverse": ["class"], "span": textStyle, "br": [],
    "tab": [],
  ]
}

/// An element's effective attributes: its classes' properties overlaid by its own attributes,
/// with bindings evaluated and `@key` strings localized.
struct Attributes {
  /// Each name once. An element has a few: a scan of short names beats hashing each of the
  /// two dozen properties asked for.
  var values: [(name: String, value: String)]
  var location: SourceLocation
  var element: String

  subscript(name: String) -> String? {
    for (n, v) in values where n == name { return v }
    return nil
  }

  func bool(_ name: String) throws -> Bool? {
    guard let v = self[name]?.lowercased() else { return nil }
    switch v {
    case "true", "yes", "1", "": return true
    case "false", "no", "0": return false
    default: throw TemplateError(location, "\(name) on <\(element)> must be true or false, not '\(v)'")
    }
  }

  func number(_ name: String, in range: ClosedRange<Double> = -1e6...1e6) throws -> Double? {
    guard let v = self[name] else { return nil }
    guard let n = Double(Length.trimmed(v)), range.contains(n) else {
      throw TemplateError(
        location, "\(name) on <\(element)> must be a number in \(range.lowerBound)…\(range.upperBound), not '\(v)'")
    }
    return n
  }

  /// A length of at least 0 (or of either sign with `negative`) and below 10,000 pt.
  func length(_ name: String, resolution: Resolution, negative: Bool = false) throws -> Length? {
    guard let v = self[name] else { return nil }
    guard let l = Length(parsing: v, resolution: resolution), l.points.isFinite, abs(l.points) < 10_000 else {
      throw TemplateError(
        location, "\(name) on <\(element)> must be a length such as 9pt, 3mm, 0.5in or 24dots, not '\(v)'")
    }
    guard negative || l.points >= 0 else {
      throw TemplateError(location, "\(name) on <\(element)> cannot be negative ('\(v)'); use 0 or more")
    }
    return l
  }

  func choice<T: RawRepresentable & CaseIterable>(_ name: String, _ type: T.Type) throws -> T?
  where T.RawValue == String {
    guard let v = self[name] else { return nil }
    guard let value = T(rawValue: v.lowercased()) else {
      let names = T.allCases.map(\.rawValue)
      var message = "\(name) on <\(element)> must be one of \(names.joined(separator: ", ")), not '\(v)'"
      if let near = suggestion(for: v, among: names) { message += "; did you mean '\(near)'?" }
      throw TemplateError(location, message)
    }
    return value
  }
}

extension TemplateRenderer {
  /// The effective attributes of an element, checked against what it accepts.
  func attributes(of node: MarkupNode, allowed: Set<String>, scope: Scope) throws -> Attributes {
    var bound = false
    return try attributes(of: node, allowed: allowed, scope: scope, bound: &bound)
  }

  /// The effective attributes of an element; `bound` is set when a value binds data or names a
  /// string (`$…`, `@…`), so another item of a repeat may give it another value.
  func attributes(of node: MarkupNode, allowed: Set<String>, scope: Scope, bound: inout Bool) throws
    -> Attributes
  {
    var values: [(name: String, value: String)] = []
    var fromClass = 0  // values[..<fromClass] came from classes and were not overridden
    if let classes = node.attribute("class") {
      let properties = try styles.properties(for: classes, at: node.location)
      for (key, value) in properties {
        guard allowed.contains(key), key != "class" else {
          throw TemplateError(
            node.location, "a class applied to <\(node.name)> sets '\(key)', which <\(node.name)> does not take")
        }
        values.append((key, value))
      }
      fromClass = values.count
    }
    for (name, raw) in node.attributes where name != "class" {
      guard allowed.contains(name) else {
        throw TemplateError(node.location, unknown("attribute", name, among: Array(allowed)) + " on <\(node.name)>")
      }
      if let i = values[..<fromClass].firstIndex(where: { $0.name == name }) {
        // The element's own value wins; it moves behind the class values.
        values.remove(at: i)
        fromClass -= 1
      }
      values.append((name, raw))
    }
    for i in values.indices {
      let locator = i < fromClass ? Locator(node.location) : node.locator(values[i].name)
      if Self.mayBind(values[i].value, localize: true) { bound = true }
      values[i].value = try evaluate(values[i].value, scope: scope, at: locator, localize: true)
    }
    return Attributes(values: values, location: node.location, element: node.name)
  }

  /// Applies text-style attributes (inherited down the tree).
  func apply(_ a: Attributes, to text: inout TextAttributes) throws {
    guard !a.values.isEmpty else { return }
    try textPatch(a).apply(to: &text)
  }

  /// Applies paragraph attributes (inherited down the tree).
  func apply(_ a: Attributes, to p: inout ParagraphStyle) throws {
    guard !a.values.isEmpty else { return }
    try paragraphPatch(a).apply(to: &p)
  }

  /// What text-style attributes write, checked (later writes of a field replace earlier ones, as
  /// applying them in this order would).
  func textPatch(_ a: Attributes) throws -> TextPatch {
    var text = TextPatch()
    guard !a.values.isEmpty else { return text }
    if let font = a["font"] {
      guard let descriptor = FontDescriptor(parsing: font) else {
        throw TemplateError(
          a.location, "font must read like \"DejaVu Sans 10\" or \"DejaVu Sans Mono bold 9\", not '\(font)'")
      }
      text.families = descriptor.families
      if font.split(separator: " ").last.flatMap({ Double($0) }) != nil { text.size = descriptor.size }
      if descriptor.weight != 400 { text.weight = descriptor.weight }
      if descriptor.italic { text.italic = true }
    }
    if let size = try a.number("size", in: 1...500) { text.size = size }
    if let bold = try a.bool("bold") { text.weight = bold ? 700 : 400 }
    if let italic = try a.bool("italic") { text.italic = italic }
    if let v = try a.bool("underline") { text.underline = v }
    if let v = try a.bool("strikethrough") { text.strikethrough = v }
    if let v = try a.bool("inverse") { text.inverse = v }
    if let v = try a.number("scale", in: 0.25...8) { (text.horizontalScale, text.verticalScale) = (v, v) }
    if let v = try a.number("scale-x", in: 0.25...8) { text.horizontalScale = v }
    if let v = try a.number("scale-y", in: 0.25...8) { text.verticalScale = v }
    if let v = try a.length("letter-spacing", resolution: resolution, negative: true) {
      guard abs(v.points) <= 100 else {
        throw TemplateError(a.location, "letter-spacing on <\(a.element)> must be between -100pt and 100pt")
      }
      text.letterSpacing = v.points
    }
    if let v = a["language"] { text.language = v }
    return text
  }

  /// What paragraph attributes write, checked.
  func paragraphPatch(_ a: Attributes) throws -> ParagraphPatch {
    var p = ParagraphPatch()
    guard !a.values.isEmpty else { return p }
    if let v = try a.choice("align", TextAlignment.self) { p.alignment = v }
    if let v = try a.length("line-spacing", resolution: resolution) { p.lineSpacing = v.points }
    if let v = try a.length("paragraph-spacing", resolution: resolution) { p.paragraphSpacing = v.points }
    if let v = try a.length("indent", resolution: resolution) { p.headIndent = v.points }
    if let v = try a.length("first-line-indent", resolution: resolution) { p.firstLineHeadIndent = v.points }
    if let v = try a.length("tail-indent", resolution: resolution) { p.tailIndent = v.points }
    if let v = try a.length("tab-interval", resolution: resolution) { p.defaultTabInterval = max(1, v.points) }
    if let v = try a.length("tab-gap", resolution: resolution) { p.tabGap = max(0, v.points) }
    if let v = try a.choice("wrap", LineBreakMode.self) { p.lineBreakMode = v }
    if let v = try a.choice("hyphens", Hyphenation.self) { p.hyphenation = v }
    if let v = try a.number("max-lines", in: 0...10_000) { p.maxLines = Int(v) }
    if let v = try a.choice("direction", BaseDirection.self) { p.baseDirection = v }
    if let tabs = a["tabs"] { p.tabStops = try tabStops(tabs, at: a.location) }
    return p
  }

  /// `tabs="right -0 ., left 40mm, decimal 120"`: kind, location (negative: from the trailing
  /// edge) and an optional leader character, comma-separated.
  func tabStops(_ text: String, at location: SourceLocation) throws -> [TabStop] {
    try text.split(separator: ",").map { entry in
      let words = entry.split(separator: " ").map(String.init)
      guard words.count >= 2, words.count <= 3, let kind = TabStop.Alignment(rawValue: words[0]),
        let at = Length(parsing: words[1], resolution: resolution)
      else {
        throw TemplateError(
          location,
          "tab stop '\(entry.trimmingCharacters(in: .whitespaces))' must read like 'right -0 .' (kind: left, right, center, decimal; location; optional leader)"
        )
      }
      let negative = words[1].hasPrefix("-")
      let leader = words.count == 3 ? words[2].first : nil
      return TabStop(location: negative && at.points == 0 ? -0.001 : at.points, alignment: kind, leader: leader)
    }
  }
}
