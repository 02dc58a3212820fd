import Foundation

/// Dates and times. The rule for the zone a time is shown in: a `timezone:` formatter earlier in
/// the pipe, else the template's `timezone`, else the offset written in the data
/// (`2026-11-23T14:05:00+01:00` prints 14:05), else — for Unix seconds and times without an
/// offset — the machine's zone (`TZ`).
extension ValueFormatter {
  /// A point in time and the zone it was written in (nil: none written).
  struct Instant {
    var date: Date
    var zone: TimeZone?
    /// A calendar day without a time (`2026-11-23`): shown as that day in every zone.
    var dayOnly = false
  }

  /// `date`, `time` or `datetime` of an ISO 8601 string or Unix seconds.
  func formatDate(_ value: JSONValue, style: String, argument: String?, zone: TimeZone?, at location: SourceLocation)
    throws -> String
  {
    let instant = try Self.instant(value, for: style, zone: displayZone ?? timeZone, at: location)
    let utc = TimeZone(identifier: "UTC") ?? .gmt
    let zone = instant.dayOnly ? utc : (zone ?? displayZone ?? instant.zone ?? timeZone)
    let styles: [String: DateFormatter.Style] = ["short": .short, "medium": .medium, "long": .long, "full": .full]
    let pattern: DateFormatters.Pattern
    if let argument, styles[argument] == nil {
      // Letters only ("yMMMd"): a skeleton the locale orders; with separators: an exact pattern.
      pattern = argument.allSatisfy(\.isLetter) ? .skeleton(argument) : .exact(argument)
    } else {
      let s = argument.flatMap { styles[$0] } ?? .medium
      pattern = .styles(
        date: style == "time" ? .none : s, time: style == "date" ? .none : (style == "time" ? s : .short))
    }
    return caches.dates.string(from: instant.date, locale: locale, zone: zone, pattern: pattern)
  }

  /// `timezone:Zone` alone: the time as ISO 8601 with that zone's offset at that instant.
  func convert(_ value: JSONValue, to zone: TimeZone, at location: SourceLocation) throws -> JSONValue {
    let instant = try Self.instant(value, for: "timezone", zone: displayZone ?? timeZone, at: location)
    guard !instant.dayOnly else { return value }
    let f = ISO8601DateFormatter()
    f.timeZone = zone
    return .string(f.string(from: instant.date))
  }

  /// A time zone by IANA name (`Europe/Berlin`) or `UTC`.
  static func zone(_ name: String, at location: SourceLocation) throws -> TimeZone {
    guard let zone = TimeZone(identifier: name) else {
      let near = suggestion(for: name, among: TimeZone.knownTimeZoneIdentifiers)
      throw TemplateError(
        location,
        "unknown time zone '\(name)'"
          + (near.map { "; did you mean '\($0)'?" } ?? "; write an IANA name such as Europe/Berlin"))
    }
    return zone
  }

  /// The Unix seconds a date can be printed from: 0001-01-01 to 9999-12-31 (UTC).
  static let unixSeconds: ClosedRange<Decimal> = -62_135_596_800...253_402_300_799

  /// ISO 8601 (a day, a date-time with or without an offset and fraction) or Unix seconds.
  static func instant(_ value: JSONValue, for what: String, zone: TimeZone, at location: SourceLocation) throws
    -> Instant
  {
    if case .number(let seconds) = value, let s = seconds.exactDecimal {
      guard Self.unixSeconds.contains(s) else {
        // Milliseconds (JavaScript's Date.now()) are the usual cause.
        let hint =
          Self.unixSeconds.contains(s / 1000)
          ? "; it looks like milliseconds: divide by 1000 (${created / 1000 | \(what)})"
          : "; Unix seconds count from 1970 (years 1 to 9999)"
        throw TemplateError(
          location,
          "\(what) needs Unix seconds between year 1 and 9999, but the value is \(value.quotedForMessage)\(hint)")
      }
      return Instant(date: Date(timeIntervalSince1970: NSDecimalNumber(decimal: s).doubleValue), zone: nil)
    }
    if case .string(let s) = value, let instant = instant(iso: s.trimmingCharacters(in: .whitespaces), zone: zone) {
      return instant
    }
    throw TemplateError(
      location, "\(what) needs an ISO 8601 date or Unix seconds, but the value is \(value.quotedForMessage)")
  }

  /// ISO 8601 parsers. The usual forms are read by Foundation's `Date.ISO8601FormatStyle`
  /// (Sendable, and ~70× faster than `ISO8601DateFormatter`, which parses through ICU: 36 µs a
  /// date, once a receipt's largest single cost in a batch); anything else — a field out of
  /// range, which the style would roll over, or a form it does not know — goes to
  /// `ISO8601DateFormatter` as before, so what is accepted and refused is unchanged.
  /// `ISODatesTests` compares both on every form.
  static let isoDay = Date.ISO8601FormatStyle().year().month().day()
  static let isoTime = Date.ISO8601FormatStyle()
  static let isoFractional = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

  /// ICU's parsers, made once and used one parse at a time (the fallback).
  private final class ICUParsers: @unchecked Sendable {
    // @unchecked: the formatters are only used under `lock`.
    let lock = NSLock()
    let day: ISO8601DateFormatter = {
      let f = ISO8601DateFormatter()
      f.formatOptions = [.withFullDate]
      return f
    }()
    let time = ISO8601DateFormatter()
    let fractional: ISO8601DateFormatter = {
      let f = ISO8601DateFormatter()
      f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
      return f
    }()
  }
  private static let icu = ICUParsers()

  /// A day (`2026-11-23`).
  static func isoDay(_ text: String) -> Date? {
    if let fields = digits(text, at: [0, 5, 8], widths: [4, 2, 2]), dashes(text),
      (1...12).contains(fields[1]), (1...31).contains(fields[2]), let date = try? isoDay.parse(text)
    {
      return date
    }
    return icu.lock.withLock { icu.day.date(from: text) }
  }

  /// A full date and time (`2026-11-23T14:05:00Z`, with fractional seconds or not, `Z` or an
  /// offset), as `ISO8601DateFormatter` with `.withInternetDateTime` reads it.
  static func isoDate(_ text: String) -> Date? {
    let bytes = Array(text.utf8)
    if bytes.count >= 20, dashes(text), bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"),
      bytes[16] == UInt8(ascii: ":"),
      let fields = digits(text, at: [0, 5, 8, 11, 14, 17], widths: [4, 2, 2, 2, 2, 2]),
      (1...12).contains(fields[1]), (1...31).contains(fields[2]), fields[3] < 24, fields[4] < 60, fields[5] < 60
    {
      let fractional = bytes[19] == UInt8(ascii: ".")
      if let date = try? (fractional ? isoFractional : isoTime).parse(text) { return date }
    }
    return icu.lock.withLock { icu.time.date(from: text) ?? icu.fractional.date(from: text) }
  }

  /// The decimal numbers at byte offsets of `text`, each of exactly `widths` ASCII digits.
  private static func digits(_ text: String, at offsets: [Int], widths: [Int]) -> [Int]? {
    let bytes = Array(text.utf8)
    var out: [Int] = []
    for (offset, width) in zip(offsets, widths) {
      guard offset + width <= bytes.count else { return nil }
      var value = 0
      for byte in bytes[offset..<(offset + width)] {
        guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
        value = value * 10 + Int(byte - UInt8(ascii: "0"))
      }
      out.append(value)
    }
    return out
  }

  /// Whether a date starts `dddd-dd-dd`'s dashes.
  private static func dashes(_ text: String) -> Bool {
    let bytes = Array(text.utf8.prefix(8))
    return bytes.count == 8 && bytes[4] == UInt8(ascii: "-") && bytes[7] == UInt8(ascii: "-")
  }

  private static func instant(iso s: String, zone: TimeZone) -> Instant? {
    if s.count == 10 {
      return isoDay(s).map { Instant(date: $0, zone: nil, dayOnly: true) }
    }
    guard s.count >= 16 else { return nil }
    let offset = Self.offset(s)
    var text = s
    if offset == nil { text += "Z" }  // read as UTC, then moved into `zone` below
    // Without seconds (2026-11-23T14:05): add them.
    let chars = Array(text)
    if chars.count > 16, chars[10] == "T" || chars[10] == " ", chars[13] == ":", chars[16] != ":" {
      text = String(chars[..<16]) + ":00" + String(chars[16...])
    }
    if chars.count > 10, chars[10] == " " { text = String(text.prefix(10)) + "T" + text.dropFirst(11) }
    guard let parsed = isoDate(text) else { return nil }
    if let offset { return Instant(date: parsed, zone: offset) }
    let shift = zone.secondsFromGMT(for: parsed)
    return Instant(date: parsed.addingTimeInterval(-Double(shift)), zone: nil)
  }

  /// The zone of a trailing `Z` or `±hh:mm` / `±hhmm`, if written.
  private static func offset(_ s: String) -> TimeZone? {
    if s.hasSuffix("Z") || s.hasSuffix("z") { return TimeZone(secondsFromGMT: 0) }
    let chars = Array(s.suffix(6))
    let compact = Array(s.suffix(5))
    func seconds(_ sign: Character, _ h: String, _ m: String) -> TimeZone? {
      guard sign == "+" || sign == "-", let hh = Int(h), let mm = Int(m), hh < 24, mm < 60 else { return nil }
      return TimeZone(secondsFromGMT: (sign == "-" ? -1 : 1) * (hh * 3600 + mm * 60))
    }
    if chars.count == 6, chars[3] == ":", let z = seconds(chars[0], String(chars[1...2]), String(chars[4...5])) {
      return z
    }
    if compact.count == 5, s.count > 19, let z = seconds(compact[0], String(compact[1...2]), String(compact[3...4])) {
      return z
    }
    return nil
  }
}
