import Foundation
import Testing

@testable import ReceiptMarkup

/// Formatters kept between receipts write what a formatter made for the one date writes, however
/// locales, zones and patterns follow one another (a key missing one would print a receipt in
/// another's language or zone).
@Suite struct DateFormattersTests {
  @Test func keptFormattersWriteWhatANewOneWrites() {
    let date = Date(timeIntervalSince1970: 1_795_356_300)  // 2026-11-23T13:05:00Z
    let locales = ["en_US", "de_DE", "fr_FR", "ja_JP", "ar_SA", "en_GB"].map { Locale(identifier: $0) }
    let zones = ["UTC", "Europe/Berlin", "America/New_York", "Asia/Tokyo"].compactMap { TimeZone(identifier: $0) }
    let patterns: [DateFormatters.Pattern] = [
      .styles(date: .short, time: .none), .styles(date: .medium, time: .short), .styles(date: .none, time: .short),
      .skeleton("yMMMd"), .skeleton("Hm"), .exact("dd.MM.yyyy HH:mm"), .exact("yyyy-MM-dd"),
    ]
    let formatters = DateFormatters()
    for round in 0..<2 {
      for locale in locales {
        for zone in zones {
          for pattern in patterns {
            let f = DateFormatter()
            f.locale = locale
            f.timeZone = zone
            switch pattern {
            case .styles(let d, let t):
              f.dateStyle = d
              f.timeStyle = t
            case .skeleton(let s): f.setLocalizedDateFormatFromTemplate(s)
            case .exact(let p): f.dateFormat = p
            }
            let kept = formatters.string(from: date, locale: locale, zone: zone, pattern: pattern)
            #expect(kept == f.string(from: date), "round \(round): \(locale.identifier) \(zone.identifier) \(pattern)")
          }
        }
      }
    }
  }
}
