import Foundation

/// Locale-aware formatting of bound values (Foundation's formatters, ICU underneath).
struct ValueFormatter {
  static let names = ["currency", "number", "percent", "date", "time", "datetime", "upper", "lower", "default"]

  let locale: Locale
  let timeZone: TimeZone
  /// Currency code when neither the formatter nor the data names one.
  let defaultCurrency: String?

  /// Applies formatters in order. `resolve` looks up `$path` arguments.
  func format(
    _ value: JSONValue?, with formatters: [(name: String, argument: String?)], resolve: (String) -> JSONValue?,
    at location: SourceLocation
  ) throws -> String? {
    var current: JSONValue? = value
    var text: String? = value.map(\.text)
    for (name, rawArgument) in formatters {
      let argument = rawArgument.map { a in a.hasPrefix("$") ? (resolve(String(a.dropFirst()))?.text ?? "") : a }
      if name == "default" {
        if current == nil || current == .null || text == nil || text == "" {
          text = argument ?? ""
          current = .string(text!)
        }
        continue
      }
      guard let value = current, value != .null else { continue }  // missing stays missing
      switch name {
      case "upper": text = (text ?? "").uppercased(with: locale)
      case "lower": text = (text ?? "").lowercased(with: locale)
      case "currency", "number", "percent":
        guard let number = value.number else {
          throw TemplateError(location, "\(name) needs a number, but the value is \"\(value.text.prefix(40))\"")
        }
        guard number.isFinite, abs(number) < 1e15 || name == "number" && abs(number) < 1e300 else {
          throw TemplateError(
            location, "\(value.text.prefix(40)) is too large for \(name); amounts need at most 15 digits")
        }
        text = try formatNumber(number, style: name, argument: argument, at: location)
      default:  // date, time, datetime
        guard let date = Self.date(from: value) else {
          throw TemplateError(
            location, "\(name) needs an ISO 8601 date or Unix seconds, but the value is \"\(value.text)\"")
        }
        text = formatDate(date, style: name, argument: argument)
      }
      current = .string(text ?? "")
    }
    return text
  }

  /// Numbers through Foundation's FormatStyle (swift-corelibs' NumberFormatter ignores fraction
  /// digits for decimals).
  private func formatNumber(_ number: Double, style: String, argument: String?, at location: SourceLocation) throws
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
      guard let code = argument ?? defaultCurrency, code.count == 3, code.allSatisfy(\.isLetter) else {
        throw TemplateError(
          location,
          "currency needs an ISO 4217 code: write ${path | currency:EUR}, currency:$order.currency, or currency=\"EUR\" on <receipt>"
        )
      }
      return number.formatted(.currency(code: code.uppercased()).locale(locale))
    case "percent":
      let format = FloatingPointFormatStyle<Double>.Percent.percent.locale(locale)
      return digits.map { number.formatted(format.precision(.fractionLength($0))) } ?? number.formatted(format)
    default:
      let format = FloatingPointFormatStyle<Double>.number.locale(locale)
      return digits.map { number.formatted(format.precision(.fractionLength($0))) } ?? number.formatted(format)
    }
  }

  private func formatDate(_ date: Date, style: String, argument: String?) -> String {
    let f = DateFormatter()
    f.locale = locale
    f.timeZone = timeZone
    let styles: [String: DateFormatter.Style] = ["short": .short, "medium": .medium, "long": .long, "full": .full]
    if let argument, styles[argument] == nil {
      // Letters only ("yMMMd"): a skeleton the locale orders; with separators: an exact pattern.
      if argument.allSatisfy(\.isLetter) {
        f.setLocalizedDateFormatFromTemplate(argument)
      } else {
        f.dateFormat = argument
      }
    } else {
      let s = argument.flatMap { styles[$0] } ?? .medium
      f.dateStyle = style == "time" ? .none : s
      f.timeStyle = style == "date" ? .none : (style == "time" ? s : .short)
    }
    return f.string(from: date)
  }

  /// ISO 8601 (date, date-time, with or without fraction) or Unix seconds.
  static func date(from value: JSONValue) -> Date? {
    if case .number(let seconds) = value { return Date(timeIntervalSince1970: seconds.double) }
    guard case .string(let s) = value else { return nil }
    let full = ISO8601DateFormatter()
    if let d = full.date(from: s) { return d }
    full.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    if let d = full.date(from: s) { return d }
    let day = ISO8601DateFormatter()
    day.formatOptions = [.withFullDate]
    return day.date(from: s)
  }
}
