public import Foundation
public import ReceiptModel

/// Options for binding a template.
public struct TemplateOptions: Sendable {
  /// Locale for strings and formats (overrides the order's `locale` and the template's).
  public var locale: String?
  /// Missing data is an error instead of an empty value and a warning.
  public var strict: Bool
  public var timeZone: TimeZone
  /// Replaces the template's paper, resolution and margins when set.
  public var pageSetup: PageSetup?

  /// Creates options.
  public init(locale: String? = nil, strict: Bool = false, timeZone: TimeZone = .current, pageSetup: PageSetup? = nil) {
    self.locale = locale
    self.strict = strict
    self.timeZone = timeZone
    self.pageSetup = pageSetup
  }
}

/// A bound template: the document, and warnings (missing data in lenient mode, missing strings).
public struct RenderedTemplate: Sendable {
  public var document: ReceiptDocument
  public var warnings: [String]
}

extension TemplateLibrary {
  /// Binds order JSON into a template (a name in the directory, e.g. `receipt`).
  public func render(template name: String, data: Data, options: TemplateOptions = TemplateOptions()) throws
    -> RenderedTemplate
  {
    let order = try JSONValue.parseOrder(data)
    let renderer = TemplateRenderer(library: self, order: order, options: options)
    return try renderer.render(name)
  }

  /// Checks a template: XML, elements, attributes, classes and includes, binding the given data
  /// (or none, leniently).
  public func validate(template name: String, data: Data? = nil, strict: Bool = false) throws -> [String] {
    let order = try data.map { try JSONValue.parseOrder($0) } ?? .object([:])
    let renderer = TemplateRenderer(
      library: self, order: order, options: TemplateOptions(strict: strict && data != nil))
    // Without data, bindings get a neutral "0" so only the template itself is judged.
    renderer.placeholders = data == nil
    return try renderer.render(name).warnings
  }
}

/// Walks a template and builds the receipt document.
final class TemplateRenderer {
  /// Most elements one receipt expands to (includes and repeats multiply a template's size).
  static let maxExpandedElements = 200_000
  /// Most `<include>`s expanded in one receipt.
  static let maxIncludes = 1_000
  /// Most `repeat` iterations in one receipt.
  static let maxIterations = 10_000
  /// Deepest chain of includes.
  static let maxIncludeDepth = 8

  let library: TemplateLibrary
  let order: JSONValue
  let options: TemplateOptions
  var styles = StyleSheet()
  var strings: LocalizedStrings
  var formatter: ValueFormatter
  var warnings: [String] = []
  var resolution = Resolution.dpi203
  var rightToLeftLocale = false
  var iterations = 0
  var expandedElements = 0
  var includes = 0
  /// Parsed templates by file, so a fragment included many times is read and parsed once.
  private var loaded: [URL: MarkupDocument] = [:]
  var includeStack: [String] = []
  /// Missing values bind "0" silently (validating a template without data).
  var placeholders = false

  init(library: TemplateLibrary, order: JSONValue, options: TemplateOptions) {
    self.library = library
    self.order = order
    self.options = options
    let locale = Locale(identifier: options.locale ?? order["locale"]?.text ?? "en_US")
    strings = LocalizedStrings(directory: library.directory, locale: locale)
    formatter = ValueFormatter(locale: locale, timeZone: options.timeZone, defaultCurrency: order["currency"]?.text)
  }

  func render(_ name: String) throws -> RenderedTemplate {
    let document = try load(name, at: nil)
    let root = document.root
    guard root.name == "receipt" else {
      throw TemplateError(root.location, "the root element must be <receipt>, not <\(root.name)>")
    }
    try readStyleSheets(document)
    let scope = Scope(root: order)
    let a = try attributes(of: root, allowed: Vocabulary.elements["receipt"]!, scope: scope)
    // The locale: options, then the order, then the template.
    if options.locale == nil, order["locale"] == nil, let locale = a["locale"] {
      strings = LocalizedStrings(directory: library.directory, locale: Locale(identifier: locale))
      formatter = ValueFormatter(
        locale: Locale(identifier: locale), timeZone: formatter.timeZone, defaultCurrency: formatter.defaultCurrency)
    }
    if let currency = a["currency"], order["currency"] == nil {
      formatter = ValueFormatter(locale: formatter.locale, timeZone: formatter.timeZone, defaultCurrency: currency)
    }
    if let zone = a["timezone"] {
      guard let tz = TimeZone(identifier: zone) else { throw TemplateError(a.location, "unknown time zone '\(zone)'") }
      formatter = ValueFormatter(locale: formatter.locale, timeZone: tz, defaultCurrency: formatter.defaultCurrency)
    }
    let language = formatter.locale.language.languageCode?.identifier ?? ""
    rightToLeftLocale = ["ar", "he", "fa", "ur", "yi"].contains(language)
    let setup = try options.pageSetup ?? pageSetup(a)
    resolution = setup.resolution
    var style = InheritedStyle()
    style.text.language = language.isEmpty ? nil : language
    if rightToLeftLocale { style.paragraph.baseDirection = .rightToLeft }
    try apply(a, to: &style.text)
    try apply(a, to: &style.paragraph)
    let blocks = try expand(root.children, scope: scope, style: style, inRow: false).map(\.block)
    for key in strings.missing.sorted() { warnings.append("no translation for @\(key); it prints as '\(key)'") }
    let title = a["title"] ?? name
    return RenderedTemplate(
      document: ReceiptDocument(pageSetup: setup, blocks: blocks, title: title), warnings: warnings)
  }

  private func pageSetup(_ a: Attributes) throws -> PageSetup {
    var setup = PageSetup()
    if let paper = a["paper"] {
      guard let p = Paper(parsing: paper) else {
        throw TemplateError(a.location, "paper must be 58mm, 80mm, 112mm or a width such as 76mm, not '\(paper)'")
      }
      setup.paper = p
    }
    if let dpi = try a.number("dpi", in: 72...1200) { setup.resolution = Resolution(dpi: Int(dpi)) }
    if let m = try a.length("margin", resolution: setup.resolution) { setup.margins = Insets(all: m) }
    if let m = try a.length("margin-top", resolution: setup.resolution) { setup.margins.top = m }
    if let m = try a.length("margin-bottom", resolution: setup.resolution) { setup.margins.bottom = m }
    if let m = try a.length("margin-left", resolution: setup.resolution) { setup.margins.leading = m }
    if let m = try a.length("margin-right", resolution: setup.resolution) { setup.margins.trailing = m }
    guard setup.contentWidth.points > 36 else {
      throw TemplateError(
        a.location, "margins leave \(Int(setup.contentWidth.points)) pt for content; make them smaller")
    }
    return setup
  }

  /// Parses a template file by name.
  func load(_ name: String, at location: SourceLocation?) throws -> MarkupDocument {
    let url = try library.file(name, defaultExtension: "xml", at: location)
    if let document = loaded[url] { return document }
    let data = try library.read(url, limit: MarkupParser.maxBytes, at: location)
    let document = try MarkupParser.parse(data, file: url.lastPathComponent)
    loaded[url] = document
    return document
  }

  private func readStyleSheets(_ document: MarkupDocument) throws {
    for pi in document.instructions where pi.target == "properties" {
      let text = pi.data.trimmingCharacters(in: .whitespacesAndNewlines)
      if text.hasPrefix("{") {
        try styles.merge(json: Data(text.utf8), source: "the inline style sheet", at: pi.location)
      } else {
        let url = try library.file(text, defaultExtension: "json", at: pi.location)
        try styles.merge(
          json: try library.read(url, limit: 1 << 20, at: pi.location), source: url.lastPathComponent, at: pi.location)
      }
    }
  }

  // MARK: - Bindings

  /// The text of a string with its bindings evaluated and (optionally) `@key`s localized.
  func evaluate(_ text: String, scope: Scope, at location: SourceLocation, localize: Bool) throws -> String {
    var out = ""
    for part in try Interpolation.parse(text, at: location) {
      switch part {
      case .literal(let s): out += localize ? strings.localize(s) : s
      case .binding(let b): out += try value(of: b, scope: scope, at: location, isolate: false)
      }
    }
    return out
  }

  /// A binding's formatted value; missing data is an error in strict mode, else empty with a warning.
  /// `isolate` wraps it for printing in right-to-left receipts (not for attribute values).
  func value(of binding: Binding, scope: Scope, at location: SourceLocation, isolate: Bool) throws -> String {
    let raw = scope.value(at: binding.path)
    let hasDefault = binding.formatters.contains { $0.name == "default" }
    if placeholders, raw == nil || raw == .null { return "0" }  // formatter names were checked when parsed
    if raw == nil || raw == .null, !hasDefault {
      let message = "no value at $\(binding.path) in the order data"
      if options.strict {
        throw TemplateError(location, message + "; add it, or write ${\(binding.path) | default:'…'}")
      }
      warnings.append("\(location): \(message); printed empty")
      return ""
    }
    let text =
      try formatter.format(
        raw, with: binding.formatters, resolve: { DataPath($0).flatMap(scope.value(at:)) }, at: location) ?? ""
    // In right-to-left receipts every value is a first-strong isolate: "+971 4 123 4567" and
    // "$9.99" stay left-to-right units, Arabic data stays right-to-left.
    return isolate && rightToLeftLocale && !text.isEmpty ? "\u{2068}\(text)\u{2069}" : text
  }

  /// Evaluates an `if` test: `$path`, `!$path`, or `$path OP value` with ==, !=, <, <=, >, >=.
  func test(_ expression: String, scope: Scope, at location: SourceLocation) throws -> Bool {
    let e = expression.trimmingCharacters(in: .whitespaces)
    for op in ["==", "!=", "<=", ">=", "<", ">"] {
      guard let range = e.range(of: " \(op) ") ?? e.range(of: op) else { continue }
      let lhs = try operand(String(e[..<range.lowerBound]), scope: scope, at: location)
      let rhs = try operand(String(e[range.upperBound...]), scope: scope, at: location)
      if let l = lhs?.number, let r = rhs?.number { return Self.compare(l, r, op) }
      return Self.compare(lhs?.text ?? "", rhs?.text ?? "", op)
    }
    if e.hasPrefix("!") { return try !test(String(e.dropFirst()), scope: scope, at: location) }
    return try operand(e, scope: scope, at: location)?.isTruthy ?? false
  }

  /// Numbers compare as numbers, everything else as text.
  private static func compare<T: Comparable>(_ l: T, _ r: T, _ op: String) -> Bool {
    switch op {
    case "==": return l == r
    case "!=": return l != r
    case "<": return l < r
    case "<=": return l <= r
    case ">": return l > r
    default: return l >= r
    }
  }

  private func operand(_ text: String, scope: Scope, at location: SourceLocation) throws -> JSONValue? {
    let t = text.trimmingCharacters(in: .whitespaces)
    if t.hasPrefix("$") {
      guard let path = DataPath(String(t.dropFirst())) else {
        throw TemplateError(location, "malformed data path '\(t)' in test")
      }
      return scope.value(at: path)
    }
    if t.count >= 2, let q = t.first, q == "'" || q == "\"", t.last == q {
      return .string(String(t.dropFirst().dropLast()))
    }
    if let n = JSONNumber(literal: t) { return .number(n) }
    if t == "true" || t == "false" { return .bool(t == "true") }
    throw TemplateError(location, "'\(t)' in a test must be a $path, a number, true/false or a 'quoted string'")
  }
}

/// Text and paragraph style inherited down the element tree.
struct InheritedStyle {
  var text = TextAttributes()
  var paragraph = ParagraphStyle()
}
