import Foundation
import Testing

@testable import ReceiptMarkup

/// Order dates are read with `Date.ISO8601FormatStyle` (fast, Sendable); what it accepts and
/// the instant it reads must be what `ISO8601DateFormatter` — Foundation's ICU-based parser,
/// the one used before — gives, for every form a POS system writes and for near misses.
@Suite struct ISODatesTests {
  static let times = [
    "2026-11-23T14:05:00Z", "2026-11-23T14:05:59Z", "2026-01-01T00:00:00Z", "2024-02-29T23:59:59Z",
    "2026-11-23T14:05:00+01:00", "2026-11-23T14:05:00-05:30", "2026-11-23T14:05:00+0100", "2026-11-23T14:05:00-0800",
    "2026-11-23T14:05:00.5Z", "2026-11-23T14:05:00.123Z", "2026-11-23T14:05:00.123456Z",
    "2026-11-23T14:05:00.250+09:00", "1970-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "0001-01-01T00:00:00Z",
    "2026-11-23T14:05:00z",
    // Near misses: each must be refused by both, or read alike.
    "2026-13-01T00:00:00Z", "2026-11-23T25:00:00Z", "2026-11-23T14:61:00Z", "2026-11-23T14:05:61Z",
    "2026-11-23 14:05:00Z", "2026-11-23T14:05Z", "20261123T140500Z", "2026-11-23T14:05:00", "2026-11-23T14:05:00.Z",
    "2026-11-23T14:05:00+01", "2026-02-30T10:00:00Z", "2026-11-23T14:05:60Z", "2026-00-10T10:00:00Z",
    "x026-11-23T14:05:00Z", "2026-11-23T14:05:00ZZ",
    // Non-ASCII: full-width digits and a non-ASCII letter where the byte offsets expect ASCII.
    "２０２６-11-23T14:05:00Z", "2026-11-2３T14:05:00Z", "2026-11-23T14:05:00é", "2026-11-23Ṫ14:05:00Z",
  ]
  static let days = [
    "2026-11-23", "2024-02-29", "0001-01-01", "9999-12-31", "2026-13-01", "2026-11-32", "2026/11/23", "2026-02-30",
    "2026-00-10", "２０２６-11-23", "2026-11-2３",
  ]

  @Test(arguments: times) func aDateAndTimeReadsAsICUReadsIt(text: String) {
    let time = ISO8601DateFormatter()
    let fractional = ISO8601DateFormatter()
    fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    let expected = time.date(from: text) ?? fractional.date(from: text)
    let read = ValueFormatter.isoDate(text)
    #expect((read == nil) == (expected == nil), "\(text)")
    if let read, let expected {
      // ICU keeps milliseconds; the style reads every digit: the same instant to the millisecond.
      #expect(abs(read.timeIntervalSince(expected)) < 0.001, "\(text)")
    }
  }

  @Test(arguments: days) func aDayReadsAsICUReadsIt(text: String) {
    let day = ISO8601DateFormatter()
    day.formatOptions = [.withFullDate]
    #expect(ValueFormatter.isoDay(text) == day.date(from: text), "\(text)")
  }
}
