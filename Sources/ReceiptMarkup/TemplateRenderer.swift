public import Foundation
@_spi(Internals) public import ReceiptModel

/// Options for binding a template.
public struct TemplateOptions: Sendable {
  /// Locale for strings and formats (overrides the order's `locale` and the template's).
  public var locale: String?
  /// Missing data is an error instead of an empty value and a warning.
  public var strict: Bool
  public var timeZone: TimeZone
  /// Replaces the template's paper, resolution and margins when set.
  public var pageSetup: PageSetup?
  /// Replaces only the template's paper (its margins and resolution stay), as the designer's
  /// paper choice does.
  public var paper: Paper?
  /// The printer model's head: its resolution and printable width replace the template's, so
  /// the receipt is laid out for exactly the dots that printer has.
  public var printHead: PrintHead?
  /// Values the template sees besides the order's (`$reprint`, `$ticket`): the daemon's facts
  /// about the job. They come before the order's members of the same name.
  public var variables: [String: JSONValue]
  /// What the order data is called in messages: its file (`orders/1042.json:2:1: …`).
  public var dataName = "order"
  /// The printer model's name, for the template's `$receipt.model`.
  public var modelName: String?

  /// Creates options.
  public init(
    locale: String? = nil, strict: Bool = false, timeZone: TimeZone = .current, pageSetup: PageSetup? = nil,
    printHead: PrintHead? = nil, variables: [String: JSONValue] = [:], paper: Paper? = nil
  ) {
    self.variables = variables
    self.paper = paper
    self.locale = locale
    self.strict = strict
    self.timeZone = timeZone
    self.pageSetup = pageSetup
    self.printHead = printHead
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
    let order = try JSONValue.parseOrder(data, name: options.dataName)
    let renderer = TemplateRenderer(library: self, order: order, options: options)
    return try renderer.renderKeepingWarnings(name)
  }

  /// Binds order JSON into a template given as its text (the designer's unsaved editor): its
  /// includes, style sheets, strings and images still come from the directory. Errors name
  /// `name.xml` with the line and column in `source`.
  public func render(source: Data, named name: String, data: Data, options: TemplateOptions = TemplateOptions())
    throws -> RenderedTemplate
  {
    let order = try JSONValue.parseOrder(data, name: options.dataName)
    let renderer = TemplateRenderer(library: self, order: order, options: options)
    renderer.rootSource = source
    return try renderer.renderKeepingWarnings(name)
  }

  /// Checks a template given as its text, leniently and without data (as ``validate(template:data:strict:)``
  /// does): what the daemon does before it saves one.
  public func validate(source: Data, named name: String) throws -> [String] {
    let renderer = TemplateRenderer(library: self, order: .object([:]), options: TemplateOptions())
    renderer.placeholders = true
    renderer.rootSource = source
    return try renderer.renderKeepingWarnings(name).warnings
  }

  /// Checks a template: XML, elements, attributes, classes and includes, binding the given data
  /// (or none, leniently).
  public func validate(template name: String, data: Data? = nil, strict: Bool = false, dataName: String = "order")
    throws -> [String]
  {
    let order = try data.map { try JSONValue.parseOrder($0, name: dataName) } ?? .object([:])
    let renderer = TemplateRenderer(
      library: self, order: order, options: TemplateOptions(strict: strict && data != nil))
    // Without data, bindings get a neutral "0" so only the template itself is judged.
    renderer.placeholders = data == nil
    return try renderer.renderKeepingWarnings(name).warnings
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

  // The stored properties' exclusivity is unchecked at run time: a renderer binds one receipt
  // on one thread, and no access to a property calls back into the renderer (every test passed
  // with the checks on, 2026-12-02, before they were turned off here). Checked, every read and
  // write of each was a call into the runtime — 3.5 % of binding a receipt.
  let library: TemplateLibrary
  /// The data paths bind in: the order, or its member named by `root` on `<receipt>`.
  @exclusivity(unchecked) var order: JSONValue
  let options: TemplateOptions
  @exclusivity(unchecked) var styles = StyleSheet()
  @exclusivity(unchecked) var strings: LocalizedStrings
  @exclusivity(unchecked) var formatter: ValueFormatter
  /// The numbering system's digits when they are not Latin (see ``nativeDigits(_:)``).
  @exclusivity(unchecked) var digits: (digits: [Character], separator: Character)?
  /// Warnings so far, each once with how often it came (a typo in a repeated path warns once,
  /// "(14 times)"), in the order they first came.
  @exclusivity(unchecked) private var warningCounts: [String: Int] = [:]
  @exclusivity(unchecked) private var warningOrder: [String] = []
  var warnings: [String] {
    warningOrder.map { text in warningCounts[text].map { $0 > 1 ? "\(text) (\($0) times)" : text } ?? text }
  }
  @exclusivity(unchecked) var resolution = Resolution.dpi203
  @exclusivity(unchecked) var rightToLeftLocale = false
  @exclusivity(unchecked) var iterations = 0
  @exclusivity(unchecked) var expandedElements = 0
  @exclusivity(unchecked) var includes = 0
  /// Parsed templates by file, so a fragment included many times is read and parsed once.
  @exclusivity(unchecked) private var loaded: [String: MarkupDocument] = [:]
  @exclusivity(unchecked) var includeStack: [String] = []
  /// Missing values bind "0" silently (validating a template without data).
  @exclusivity(unchecked) var placeholders = false
  /// The root template's text when it is not (yet) a file: the designer's editor.
  @exclusivity(unchecked) var rootSource: Data?
  /// Parsed strings and expressions by their text (a repeat body is parsed once).
  @exclusivity(unchecked) var interpolationCache: [ExactText: [Interpolation.Part]] = [:]
  @exclusivity(unchecked) var expressionCache: [ExactText: (Expression, Int)] = [:]
  /// The attributes of elements that bind nothing, worked out at their first expansion (a
  /// repeat's body is expanded once per item; see ``compiled(_:allowed:inRow:scope:)``).
  @exclusivity(unchecked) var compiledElements: [CompiledElement.Key: CompiledElement] = [:]
  /// This receipt's style sheets and resolution in ``CompiledElements`` (nil: compiled
  /// elements are not shared with other receipts).
  @exclusivity(unchecked) var compiledContext: Int?
  /// Per-element expression evaluations so far (bounded).
  @exclusivity(unchecked) var elementEvaluations = 0
  /// Most UTF-8 bytes of bound values one receipt prints (each value is also bounded, by
  /// ``ValueFormatter/maxValueBytes``).
  static let maxBoundTextBytes = 4 << 20
  /// Bytes of bound values printed so far.
  @exclusivity(unchecked) var boundTextBytes = 0

  init(library: TemplateLibrary, order: JSONValue, options: TemplateOptions) {
    self.library = library
    self.order = order
    self.options = options
    let locale = Locale(identifier: options.locale ?? order["locale"]?.text ?? "en_US")
    strings = LocalizedStrings(directory: library.directory, locale: locale, caches: library.caches)
    formatter = ValueFormatter(
      locale: locale, timeZone: options.timeZone, defaultCurrency: order["currency"]?.text, caches: library.caches)
  }

  /// Renders; an error carries the warnings found before it.
  func renderKeepingWarnings(_ name: String) throws -> RenderedTemplate {
    do {
      return try render(name)
    } catch var error as TemplateError {
      error.warnings = warnings + strings.warnings
      throw error
    }
  }

  func render(_ name: String) throws -> RenderedTemplate {
    let document = try load(name, at: nil)
    let root = document.root
    guard root.name == "receipt" else {
      throw TemplateError(root.location, "the root element must be <receipt>, not <\(root.name)>")
    }
    let sheets = try readStyleSheets(document)
    try enterDataRoot(of: root)
    var scope = Scope(root: order, variables: options.variables)
    let a = try attributes(of: root, allowed: Vocabulary.elements["receipt"]!, scope: scope)
    // The locale: options, then the order, then the template; every one of them must be known.
    var templateLocale: Locale?
    if let t = a["locale"] {
      templateLocale = try TemplateLocale.checked(t, source: "locale on <receipt>", at: a.location)
    }
    let locale: Locale
    if let o = options.locale {
      locale = try TemplateLocale.checked(o, source: "the requested locale", at: nil)
    } else if let o = order["locale"] {
      locale = try TemplateLocale.checked(o.text, source: "the order's \"locale\"", at: nil)
    } else {
      locale = templateLocale ?? Locale(identifier: "en_US")
    }
    strings = LocalizedStrings(
      directory: library.directory, locale: locale, templateLocale: templateLocale, caches: library.caches)
    var numbers = locale
    if try a.choice("digits", Digits.self) == .latin {
      var components = Locale.Components(locale: locale)
      components.numberingSystem = "latn"
      numbers = Locale(components: components)
    }
    formatter = ValueFormatter(
      locale: numbers, timeZone: formatter.timeZone, defaultCurrency: formatter.defaultCurrency,
      caches: library.caches)
    digits = Self.digits(of: numbers)
    if let currency = a["currency"] {
      try ValueFormatter.currency(currency, at: a.location)
      if order["currency"] == nil { formatter.defaultCurrency = currency }
    }
    if let zone = a["timezone"] { formatter.displayZone = try ValueFormatter.zone(zone, at: a.location) }
    if let rounding = try a.choice("rounding", RoundingMode.self) { formatter.rounding = rounding }
    let language = formatter.locale.language.languageCode?.identifier ?? ""
    rightToLeftLocale = ["ar", "he", "fa", "ur", "yi"].contains(language)
    var setup = try options.pageSetup ?? pageSetup(a)
    if let paper = options.paper { setup.paper = paper }
    if let head = options.printHead {
      guard let fitted = head.fitting(setup) else {
        throw TemplateError(
          a.location,
          "the printer model takes \(head.papers.joined(separator: " or ")) paper, not \(setup.paper.name); set paper= or --paper"
        )
      }
      setup = fitted
    }
    resolution = setup.resolution
    // Elements compiled for earlier receipts apply when their style sheets and resolution are
    // the same (not for a template given as text: its elements are new each time).
    if rootSource == nil, let sheets {
      compiledContext = library.caches.elements.context("\(resolution.dpi)\n\(sheets)")
    }
    // What the template prints on, for tests and expressions (`$receipt.paper.width < 70`).
    scope.variables["receipt"] = Self.facts(of: setup, model: options.modelName, caches: library.caches)
    var style = InheritedStyle()
    style.text.language = language.isEmpty ? nil : language
    if rightToLeftLocale { style.paragraph.baseDirection = .rightToLeft }
    try apply(a, to: &style.text)
    try apply(a, to: &style.paragraph)
    let blocks = try expand(root.children, scope: scope, style: style, inRow: false).map(\.block)
    if options.strict, let first = strings.warnings.first {
      throw TemplateError(file: "\(name).xml", message: first + " (--strict makes every warning an error)")
    }
    let title = a["title"] ?? name
    var receipt = ReceiptDocument(pageSetup: setup, blocks: blocks, title: title)
    receipt.fontDirectories = [library.directory.path]
    return RenderedTemplate(document: receipt, warnings: warnings + strings.warnings)
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
        a.location, "margins leave \(setup.contentWidth.points.clampedInt(.down)) pt for content; make them smaller")
    }
    return setup
  }

  /// Parses a template file by name.
  func load(_ name: String, at location: SourceLocation?) throws -> MarkupDocument {
    if location == nil, let source = rootSource {
      guard source.count <= MarkupParser.maxBytes else {
        throw TemplateError(
          file: "\(name).xml", message: "\(source.count) bytes; the limit is \(MarkupParser.maxBytes)")
      }
      return try MarkupParser.parse(source, file: "\(name).xml")
    }
    let path = try library.file(name, defaultExtension: "xml", at: location)
    if let document = loaded[path] { return document }
    let document = try library.caches.files.document(at: path) {
      try MarkupParser.parse(
        try library.read(path, limit: MarkupParser.maxBytes, at: location), file: Self.fileName(path))
    }
    loaded[path] = document
    return document
  }

  /// Merges the template's style sheets into ``styles``; returns what identifies them: each
  /// inline sheet's text and each file's path and version (nil when a file's version is not
  /// known), for ``CompiledElements``.
  private func readStyleSheets(_ document: MarkupDocument) throws -> String? {
    var identity: String? = ""
    for pi in document.instructions where pi.target == "properties" {
      let text = pi.data.trimmingCharacters(in: .whitespacesAndNewlines)
      if text.hasPrefix("{") {
        try styles.merge(json: Data(text.utf8), source: "the inline style sheet", at: pi.location)
        identity? += "inline \(text.utf8.count) \(text)\n"
      } else {
        let path = try library.file(text, defaultExtension: "json", at: pi.location)
        let source = Self.fileName(path)
        let (sheet, stamp) = try library.caches.files.styleSheetAndStamp(at: path) {
          try StyleSheet.parse(try library.read(path, limit: 1 << 20, at: pi.location), source: source, at: pi.location)
        }
        try styles.merge(sheet, source: source, at: pi.location)
        if let stamp {
          identity? +=
            "file \(path.utf8.count) \(path) \(stamp.device) \(stamp.inode) \(stamp.size) \(stamp.seconds) \(stamp.nanoseconds)\n"
        } else {
          identity = nil
        }
      }
    }
    return identity
  }

  /// The last component of a path.
  static func fileName(_ path: String) -> String {
    // By its bytes (``TemplateLibrary/lastComponent(_:)``): `split` made every component a string.
    let last = TemplateLibrary.lastComponent(path)
    // `split` left out empty components: "dir/" names "dir".
    return last.isEmpty ? (path.split(separator: "/").last.map(String.init) ?? path) : String(last)
  }

  // MARK: - Bindings

  /// The text of a string with its bindings evaluated and (optionally) `@key`s localized.
  func evaluate(_ text: String, scope: Scope, at locator: Locator, localize: Bool) throws -> String {
    // Most attribute values (`align="right"`, `size="9"`) bind nothing and name no string: a
    // byte test each, not a parse-cache lookup that hashes the whole text.
    if !Self.mayBind(text, localize: localize) { return text }
    var out = ""
    for part in try interpolation(text, at: locator) {
      switch part {
      case .literal(let s): out += localize ? strings.localize(s) : s
      case .binding(let b): out += try value(of: b, scope: scope, at: locator, isolate: false)
      }
    }
    return out
  }

  /// Whether a text holds a `$` (or, when localizing, an `@`): one pass over its bytes in place
  /// (`utf8.contains` went through the view's iterator a byte at a time, twice).
  static func mayBind(_ text: String, localize: Bool) -> Bool {
    func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
      localize ? bytes.contains { $0 == 0x24 || $0 == 0x40 } : bytes.contains(0x24)
    }
    if let found = text.utf8.withContiguousStorageIfAvailable(scan) { return found }
    return localize ? text.utf8.contains { $0 == 0x24 || $0 == 0x40 } : text.utf8.contains(0x24)
  }

  /// A string's parts, parsed once per template text.
  func interpolation(_ text: String, at locator: Locator) throws -> [Interpolation.Part] {
    if let parts = interpolationCache[ExactText(text)] { return parts }
    let parts = try library.caches.bindings.interpolation(text) { try Interpolation.parse(text, at: locator) }
    interpolationCache[ExactText(text)] = parts
    return parts
  }

  /// A binding's formatted value; missing data is an error in strict mode, else empty with a warning.
  /// `isolate` wraps it for printing in right-to-left receipts (not for attribute values).
  func value(of expression: Expression, scope: Scope, at locator: Locator, isolate: Bool) throws -> String {
    var missing: [DataPath] = []
    let result = try evaluate(expression, scope: scope, at: locator, missing: &missing)
    if placeholders, result == nil || result == .null { return "0" }
    guard let result, result != .null else {
      let path = missing.first.map { "$\($0)" } ?? "the expression"
      let location = locator(expression.offset)
      var message = "no value at \(path) in the order data"
      if let first = missing.first, let member = memberHolding(first, scope: scope) {
        message += " (the data has it one level down, under \"\(member)\": write root=\"\(member)\" on <receipt>)"
      }
      if let name = missing.first.map({ "\($0)" }), name.contains("-") {
        // `total-total_tax` is one name (names may hold '-'); a subtraction needs spaces.
        message +=
          " (a name may contain '-': to subtract, put spaces around the minus, "
          + "${\(name.replacingOccurrences(of: "-", with: " - "))})"
      }
      let fix = missing.first.map { "${\($0) | default:'…'}" } ?? "${… | default:'…'}"
      try warn(location, message + "; printed empty", strictly: message + "; add it, or write \(fix)")
      return ""
    }
    var text = result.text
    boundTextBytes += text.utf8.count
    guard boundTextBytes <= Self.maxBoundTextBytes else {
      throw TemplateError(
        locator(expression.offset),
        "the receipt's bound values come to more than \(Self.maxBoundTextBytes) bytes (4 MiB) in all; "
          + "print fewer or shorter values")
    }
    if isolate, case .number = result { text = nativeDigits(text) }
    // A printed value is a first-strong isolate: in right-to-left receipts "+971 4 123 4567" and
    // "$9.99" stay left-to-right units; in any receipt Arabic or Hebrew data keeps its own
    // direction without turning the label's paragraph or moving the amount. (Values without a
    // right-to-left character in a left-to-right receipt need none and are left plain.)
    guard isolate, !text.isEmpty, rightToLeftLocale || Self.hasRightToLeft(text) else { return text }
    return "\u{2068}\(text)\u{2069}"
  }

  /// Records a warning at `location` (once per text, counted), or — with `--strict` — throws it
  /// (as `strictly` when that says more).
  func warn(_ location: SourceLocation?, _ message: String, strictly: String? = nil) throws {
    if options.strict {
      let text = strictly ?? message
      throw location.map { TemplateError($0, text) } ?? TemplateError(file: "template", message: text)
    }
    let text = location.map { "\($0): \(message)" } ?? message
    if warningCounts[text] == nil { warningOrder.append(text) }
    warningCounts[text, default: 0] += 1
  }

  /// The digits 0–9 and the decimal separator of a locale's numbering system, or nil for Latin
  /// digits (nothing to change).
  static func digits(of locale: Locale) -> (digits: [Character], separator: Character)? {
    if let known = knownDigits.withLock({ $0[locale.identifier] }) { return known.digits }
    let found = findDigits(of: locale)
    knownDigits.withLock { $0[locale.identifier] = KnownDigits(digits: found) }
    return found
  }

  private struct KnownDigits: Sendable {
    var digits: (digits: [Character], separator: Character)?
  }
  private static let knownDigits = Locked<[String: KnownDigits]>([:])

  private static func findDigits(of locale: Locale) -> (digits: [Character], separator: Character)? {
    let digits: [Character] = (0...9).map { (n: Int) -> Character in
      let text: String = Decimal(n).formatted(.number.locale(locale))
      return text.first ?? "0"
    }
    guard digits != Array("0123456789") else { return nil }
    let half = Decimal(string: "0.5")!.formatted(.number.locale(locale))
    let separator = half.first { !digits.contains($0) } ?? "."
    return (digits, separator)
  }

  /// A number as written in the data (`$item.qty`, an id), in the digits of the locale's
  /// numbering system, as the formatters write theirs: in `ar_EG` `12` prints as `١٢`.
  func nativeDigits(_ text: String) -> String {
    guard let digits else { return text }
    return String(
      text.map { c -> Character in
        if let v = c.asciiValue, v >= 0x30, v <= 0x39 { return digits.digits[Int(v - 0x30)] }
        return c == "." ? digits.separator : c
      })
  }

  /// Whether text holds a right-to-left letter (Hebrew, Arabic, Syriac, Thaana, N'Ko and their
  /// presentation forms, and the right-to-left scripts beyond the BMP).
  static func hasRightToLeft(_ text: String) -> Bool {
    // Every such letter is U+0590 or above, whose UTF-8 starts with a byte of 0xD6 or more:
    // text without one (ASCII, Latin, Greek, Cyrillic) is answered by a byte scan.
    guard ExactText.hasByte(atLeast: 0xD6, in: text) else { return false }
    return text.unicodeScalars.contains { s in
      let v = s.value
      return (0x0590...0x08FF).contains(v) || (0xFB1D...0xFDFF).contains(v) || (0xFE70...0xFEFF).contains(v)
        || (0x10800...0x10FFF).contains(v) || (0x1E800...0x1EFFF).contains(v)
    }
  }
}

/// Text and paragraph style inherited down the element tree.
struct InheritedStyle {
  var text = TextAttributes()
  var paragraph = ParagraphStyle()
}
