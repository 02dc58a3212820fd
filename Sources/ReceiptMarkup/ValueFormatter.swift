import Foundation

/// Locale-aware formatting of bound values (Foundation's format styles, ICU underneath), exact
/// for numbers: values are `Decimal`s, never binary floating point.
/// Which digits numbers print in: the locale's numbering system (`native`, Arabic-Indic in
/// `ar_EG`) or always `latin` (0–9).
enum Digits: String, CaseIterable {
  case native
  case latin
}

struct ValueFormatter {
  /// What a formatter takes: how many arguments, which are expressions evaluated per array
  /// element, and how to write it (for messages).
  struct Spec {
    var arguments: ClosedRange<Int>
    var expressionArguments: Set<Int> = []
    var usage: String
  }

  static let specs: [String: Spec] = [
    "currency": Spec(arguments: 0...1, usage: "currency or currency:EUR"),
    "money": Spec(arguments: 0...1, usage: "money or money:EUR (minor units: 1250 is 12.50 EUR)"),
    "number": Spec(arguments: 0...1, usage: "number or number:2 (fraction digits)"),
    "percent": Spec(arguments: 0...1, usage: "percent or percent:1"),
    "round": Spec(arguments: 0...2, usage: "round:2 or round:2:half-even"),
    "date": Spec(arguments: 0...1, usage: "date, date:short or date:yyyy-MM-dd"),
    "time": Spec(arguments: 0...1, usage: "time or time:HH:mm"),
    "datetime": Spec(arguments: 0...1, usage: "datetime or datetime:short"),
    "timezone": Spec(arguments: 1...1, usage: "timezone:Europe/Berlin"),
    "upper": Spec(arguments: 0...0, usage: "upper"),
    "lower": Spec(arguments: 0...0, usage: "lower"),
    "trim": Spec(arguments: 0...0, usage: "trim"),
    "default": Spec(arguments: 1...1, usage: "default:'text'"),
    "replace": Spec(arguments: 2...2, usage: "replace:'old':'new'"),
    "pad": Spec(arguments: 1...3, usage: "pad:10, pad:10:right or pad:10:center:'.'"),
    "truncate": Spec(arguments: 1...2, usage: "truncate:20 or truncate:20:'...'"),
    "substring": Spec(arguments: 1...2, usage: "substring:0:5"),
    "map": Spec(arguments: 1...1, usage: "map:'cash=Cash, card=Card' or map:@payment"),
    "count": Spec(arguments: 0...0, usage: "count"),
    "sum": Spec(arguments: 0...1, expressionArguments: [0], usage: "sum or sum:'price * quantity'"),
    "min": Spec(arguments: 0...1, expressionArguments: [0], usage: "min or min:'price'"),
    "max": Spec(arguments: 0...1, expressionArguments: [0], usage: "max or max:'price'"),
    "first": Spec(arguments: 0...0, usage: "first"),
    "last": Spec(arguments: 0...0, usage: "last"),
    "where": Spec(arguments: 1...1, expressionArguments: [0], usage: "where:'rate == 7'"),
    "join": Spec(arguments: 0...1, usage: "join or join:' / '"),
  ]

  let locale: Locale
  /// `locale.identifier`, asked once (it keys every kept number string).
  let localeIdentifier: String
  /// The zone of times without an offset (Unix seconds, `2026-11-23T14:05`).
  let timeZone: TimeZone
  /// The template's zone: when set, every time is shown in it; otherwise a time keeps its offset.
  var displayZone: TimeZone?
  /// Currency code when neither the formatter nor the data names one.
  var defaultCurrency: String?
  /// How `currency`, `number`, `percent` and `round` round.
  var rounding: RoundingMode = .halfUp
  /// Where formatted numbers and date formatters are kept (the engine's context).
  let caches: MarkupCaches

  init(locale: Locale, timeZone: TimeZone, defaultCurrency: String?, caches: MarkupCaches) {
    self.caches = caches
    self.locale = locale
    localeIdentifier = locale.identifier
    self.timeZone = timeZone
    self.defaultCurrency = defaultCurrency
  }

  // MARK: - Numbers

  /// `currency`, `number` or `percent` of an exact number.
  func formatNumber(_ value: JSONValue, style: String, argument: String?, at location: SourceLocation) throws -> String
  {
    let (number, decimal) = try Self.number(value, for: style, at: location)
    // An amount that rounds to zero prints as zero, not "-0,00 €".
    if number.negative {
      let zero = try formatNumber(Decimal(0), key: "0e0", style: style, argument: argument, at: location)
      let magnitude = "\(number.digits)e\(number.exponent)"
      if try formatNumber(-decimal, key: magnitude, style: style, argument: argument, at: location) == zero {
        return zero
      }
    }
    let key = "\(number.negative ? "-" : "")\(number.digits)e\(number.exponent)"
    return try formatNumber(decimal, key: key, style: style, argument: argument, at: location)
  }

  /// `decimal` formatted, kept in ``NumberStrings`` under `key`: its sign, significant digits
  /// and power of ten (one value has one key, so `1.50` and `1.5` share it; no `Decimal` is
  /// turned into text to look it up).
  private func formatNumber(
    _ decimal: Decimal, key value: String, style: String, argument: String?, at location: SourceLocation
  ) throws -> String {
    let key = NumberStrings.Key(
      locale: localeIdentifier, style: style,
      argument: style == "currency" ? argument ?? defaultCurrency : argument, rounding: rounding, value: value)
    return try caches.numbers.string(key) {
      try formatNumberAfresh(decimal, style: style, argument: argument, at: location)
    }
  }

  /// `formatNumber` without ``NumberStrings`` (tests compare both).
  func formatNumberAfresh(_ decimal: Decimal, style: String, argument: String?, at location: SourceLocation) throws
    -> String
  {
    var digits: Int?
    if style != "currency", let argument {
      guard let d = Int(argument), (0...10).contains(d) else {
        throw TemplateError(location, "\(style) takes a count of fraction digits (0…10), not '\(argument)'")
      }
      digits = d
    }
    switch style {
    case "currency":
      guard let code = argument ?? defaultCurrency else {
        throw TemplateError(
          location,
          "currency needs an ISO 4217 code: write ${path | currency:EUR}, currency:$order.currency, or currency=\"EUR\" on <receipt>"
        )
      }
      try Self.currency(code, at: location)
      return decimal.formatted(.currency(code: code.uppercased()).locale(locale).rounded(rule: rounding.rule))
    case "percent":
      let format = Decimal.FormatStyle.Percent.percent.locale(locale).rounded(rule: rounding.rule)
      return digits.map { decimal.formatted(format.precision(.fractionLength($0))) } ?? decimal.formatted(format)
    default:
      let format = Decimal.FormatStyle.number.locale(locale).rounded(rule: rounding.rule)
      return digits.map { decimal.formatted(format.precision(.fractionLength($0))) } ?? decimal.formatted(format)
    }
  }

  /// `round[:digits[:mode]]`: the number rounded, still a number.
  func round(_ value: JSONValue, digits: String?, mode: String?, at location: SourceLocation) throws -> JSONValue {
    let decimal = try Self.decimal(value, for: "round", at: location)
    var scale = 0
    if let digits {
      guard let d = Int(digits), (-20...20).contains(d) else {
        throw TemplateError(location, "round takes a count of fraction digits (-20…20), not '\(digits)'")
      }
      scale = d
    }
    var rule = rounding
    if let mode {
      guard let m = RoundingMode(rawValue: mode) else {
        throw TemplateError(
          location, unknown("rounding mode", mode, among: RoundingMode.allCases.map(\.rawValue)))
      }
      rule = m
    }
    return .number(JSONNumber(rule.round(decimal, scale: scale)) ?? JSONNumber(0))
  }

  /// A value as an exact decimal, or an error naming what was wrong with it.
  static func decimal(_ value: JSONValue, for what: String, at location: SourceLocation) throws -> Decimal {
    try number(value, for: what, at: location).decimal
  }

  /// A value as a number and its exact decimal, or an error naming what was wrong with it.
  static func number(_ value: JSONValue, for what: String, at location: SourceLocation) throws -> (
    number: JSONNumber, decimal: Decimal
  ) {
    guard let number = value.decimal else {
      throw TemplateError(location, "\(what) needs a number, but the value is \(value.quotedForMessage)")
    }
    guard let decimal = number.exactDecimal else {
      throw TemplateError(
        location,
        "\(value.text.prefix(40)) has more than \(JSONNumber.maxArithmeticDigits) significant digits; \(what) is exact up to \(JSONNumber.maxArithmeticDigits)"
      )
    }
    return (number, decimal)
  }

  // MARK: - Strings

  /// `trim`, `replace`, `pad`, `truncate`, `substring`, `upper`, `lower`.
  /// Most UTF-8 bytes of one value a binding computes (after each formatter and each `+`).
  static let maxValueBytes = 1 << 20

  /// Refuses a value of `bytes` bytes made by `what` when it is over ``maxValueBytes``.
  static func checkSize(_ bytes: Int, of what: String, at location: SourceLocation) throws {
    guard bytes > maxValueBytes else { return }
    throw TemplateError(
      location,
      "\(what) would make a value of \(bytes) bytes; a bound value is limited to \(maxValueBytes) bytes (1 MiB)")
  }

  func formatString(_ text: String, name: String, arguments: [String], at location: SourceLocation) throws -> String {
    func count(_ i: Int, _ what: String, allowNegative: Bool = false) throws -> Int {
      guard let n = Int(arguments[i]), (allowNegative ? -10_000 : 0)...10_000 ~= n else {
        throw TemplateError(location, "\(name) takes \(what) as a whole number, not '\(arguments[i])'")
      }
      return n
    }
    switch name {
    case "upper": return text.uppercased(with: locale)
    case "lower": return text.lowercased(with: locale)
    case "trim": return text.trimmingCharacters(in: .whitespacesAndNewlines)
    case "replace":
      guard !arguments[0].isEmpty else { return text }
      let growth = arguments[1].utf8.count - arguments[0].utf8.count
      if growth > 0 {
        // Measure before building: chained replaces once grew text tenfold per step (715 MB).
        let occurrences = text.components(separatedBy: arguments[0]).count - 1
        try Self.checkSize(text.utf8.count + occurrences * growth, of: name, at: location)
      }
      return text.replacingOccurrences(of: arguments[0], with: arguments[1])
    case "pad":
      let width = try count(0, "a width")
      let align = arguments.count > 1 ? arguments[1] : "left"
      let fill = arguments.count > 2 ? arguments[2] : " "
      guard let fillCharacter = fill.first, fill.count == 1 else {
        throw TemplateError(location, "pad fills with one character, not '\(fill)'")
      }
      let missing = max(0, width - text.count)
      let left: Int
      switch align {
      case "left": left = 0
      case "right": left = missing
      case "center": left = missing / 2
      default: throw TemplateError(location, "pad aligns left, right or center, not '\(align)'")
      }
      return String(repeating: fillCharacter, count: left) + text
        + String(repeating: fillCharacter, count: missing - left)
    case "truncate":
      let width = try count(0, "a width")
      let ellipsis = arguments.count > 1 ? arguments[1] : "…"
      guard text.count > width else { return text }
      return String(text.prefix(max(0, width - ellipsis.count))) + ellipsis.prefix(width)
    default:  // substring
      let start = try count(0, "a start", allowNegative: true)
      let from = start < 0 ? max(0, text.count + start) : min(start, text.count)
      let rest = text.dropFirst(from)
      return String(arguments.count > 1 ? rest.prefix(try count(1, "a length")) : rest)
    }
  }
}

extension JSONValue {
  /// The value for an error message: `"abc"`, `an array`, `null`.
  var quotedForMessage: String {
    switch self {
    case .string(let s): return "\"\(s.prefix(40))\""
    case .number(let n): return n.literal
    case .bool(let b): return "\(b)"
    default: return kind
    }
  }
}
