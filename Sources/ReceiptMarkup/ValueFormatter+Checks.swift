import Foundation

/// What a formatter's arguments may be, checked from the template alone — so `validate` finds a
/// misspelt date style or currency code without data, and a render never prints garbage for one
/// (`datetime:shrot` once printed "2026 6 PM (seconde: …"). Errors echo the value and say what
/// it may be.
extension ValueFormatter {
  /// The ISO 4217 codes of current currencies (ICU's list, through Foundation).
  static let currencyCodes: Set<String> = Set(Locale.Currency.isoCurrencies.map(\.identifier))

  /// The letters of ICU date patterns and skeletons (Unicode TR 35, "Date Field Symbol Table").
  static let dateFieldLetters = Set("GyYuUrQqMLlwWdDFgEecabBhHkKjJCmsSAzZOvVXx")

  /// The date styles `date`, `time` and `datetime` take by name.
  static let dateStyles = ["short", "medium", "long", "full"]

  /// Checks the arguments of formatter `name` (nil: not known before the data, a `$path`).
  static func check(_ name: String, _ arguments: [String?], at location: SourceLocation) throws {
    func argument(_ i: Int) -> String? { i < arguments.count ? arguments[i] : nil }
    func whole(_ i: Int, _ what: String, _ range: ClosedRange<Int>) throws {
      guard let text = argument(i) else { return }
      guard let n = Int(text), range.contains(n) else {
        throw TemplateError(location, "\(name) takes \(what) (\(range.lowerBound)…\(range.upperBound)), not '\(text)'")
      }
    }
    switch name {
    case "currency", "money":
      if let code = argument(0) { try currency(code, at: location) }
    case "number", "percent":
      try whole(0, "a count of fraction digits", 0...10)
    case "round":
      try whole(0, "a count of fraction digits", -20...20)
      if let mode = argument(1), RoundingMode(rawValue: mode) == nil {
        throw TemplateError(location, unknown("rounding mode", mode, among: RoundingMode.allCases.map(\.rawValue)))
      }
    case "date", "time", "datetime":
      if let style = argument(0) { try dateFormat(style, formatter: name, at: location) }
    case "pad":
      try whole(0, "a width", 0...10_000)
      if let align = argument(1), !["left", "right", "center"].contains(align) {
        throw TemplateError(location, "pad aligns left, right or center, not '\(align)'")
      }
      if let fill = argument(2), fill.count != 1 {
        throw TemplateError(location, "pad fills with one character, not '\(fill)'")
      }
    case "truncate":
      try whole(0, "a width", 0...10_000)
    case "substring":
      try whole(0, "a start", -10_000...10_000)
      try whole(1, "a length", 0...10_000)
    default:
      break
    }
  }

  /// A currency code: three letters of ISO 4217.
  static func currency(_ code: String, at location: SourceLocation) throws {
    guard !currencyCodes.contains(code.uppercased()) else { return }
    var message = "currency needs an ISO 4217 code such as EUR, USD or CHF, not '\(code)'"
    if let near = suggestion(for: code.uppercased(), among: currencyCodes.sorted()) {
      message += "; did you mean '\(near)'?"
    }
    throw TemplateError(location, message)
  }

  /// A date style (`short` … `full`), a skeleton of field letters (`yMMMd`, ordered by the
  /// locale) or a pattern (`dd.MM.yyyy HH:mm`, text in single quotes): every unquoted letter must
  /// be a date field's.
  static func dateFormat(_ format: String, formatter: String, at location: SourceLocation) throws {
    if dateStyles.contains(format) { return }
    var quoted = false
    for c in format {
      if c == "'" {
        quoted.toggle()
      } else if !quoted, c.isLetter, !(c.isASCII && dateFieldLetters.contains(c)) {
        var message =
          "\(formatter):\(format) is neither a style (short, medium, long, full) nor a date pattern: "
          + "'\(c)' is no date field letter (y year, M month, d day, E weekday, H hour, m minute, s second …; "
          + "quote text: 'at')"
        if let near = suggestion(for: format, among: dateStyles) { message += "; did you mean '\(near)'?" }
        throw TemplateError(location, message)
      }
    }
    if quoted { throw TemplateError(location, "\(formatter):\(format) opens a quote it never closes") }
  }
}
