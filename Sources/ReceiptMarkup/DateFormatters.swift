import Foundation

/// Date formatters made once per locale, zone and pattern: making one (ICU opens the locale's
/// patterns) costs more than formatting a date with it, and a receipt formats a date or two per
/// receipt in a batch of thousands. Each formatter is used by one thread at a time.
final class DateFormatters: @unchecked Sendable {
  // @unchecked: `formatters` and every formatter in it are only used under `lock`.
  /// How a date is written.
  enum Pattern: Hashable {
    /// The locale's styles for the date and the time.
    case styles(date: DateFormatter.Style, time: DateFormatter.Style)
    /// A skeleton ("yMMMd") the locale orders.
    case skeleton(String)
    /// An exact pattern ("dd.MM.yyyy HH:mm").
    case exact(String)
  }

  private struct Key: Hashable {
    var locale: String
    var zone: String
    var pattern: Pattern
  }

  /// More distinct formatters than this and the cache starts again (a daemon serving every
  /// locale and zone keeps a few dozen).
  static let capacity = 256

  private let lock = NSLock()
  private var formatters: [Key: DateFormatter] = [:]

  /// `date` written in `locale` and `zone` with `pattern`.
  func string(from date: Date, locale: Locale, zone: TimeZone, pattern: Pattern) -> String {
    let key = Key(locale: locale.identifier, zone: zone.identifier, pattern: pattern)
    lock.lock()
    defer { lock.unlock() }
    if let formatter = formatters[key] { return formatter.string(from: date) }
    let f = DateFormatter()
    f.locale = locale
    f.timeZone = zone
    switch pattern {
    case .styles(let dateStyle, let timeStyle):
      f.dateStyle = dateStyle
      f.timeStyle = timeStyle
    case .skeleton(let skeleton): f.setLocalizedDateFormatFromTemplate(skeleton)
    case .exact(let format): f.dateFormat = format
    }
    if formatters.count >= Self.capacity { formatters.removeAll(keepingCapacity: true) }
    formatters[key] = f
    return f.string(from: date)
  }
}
