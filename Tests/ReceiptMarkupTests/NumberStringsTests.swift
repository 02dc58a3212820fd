import Foundation
import Testing

@testable import ReceiptMarkup

/// Formatted numbers are kept by the engine's context (``NumberStrings``); a kept string must be the one a
/// fresh ICU formatting gives, for every shipped locale, style, rounding and way of writing the
/// value.
@Suite(.serialized) struct NumberStringsTests {
  static let locales = ["en_US", "de_DE", "fr_FR", "ja_JP", "ar_SA", "ar_SA@numbers=latn"]
  static let here = SourceLocation(file: "t.xml", line: 1, column: 1)
  // Equal values written apart (1.5, 1.50, 1.5e0) share a kept string; a sign, a power of ten
  // or a digit apart (-1.005 and 1.005, 15 and 150) must not.
  static let values = [
    "0", "1.5", "1.50", "1.500", "1.5e0", "-0.004", "0.004", "-1.005", "1.005", "2.675", "12345678.9", "0.125", "1000",
    "-0", "15", "150", "1.5e1", "820982911946154508",
  ]

  @Test(arguments: locales)
  func aKeptNumberIsAFreshlyFormattedOne(locale: String) throws {
    let caches = MarkupCaches()
    let calls: [(style: String, argument: String?)] = [
      ("currency", "EUR"), ("currency", "JPY"), ("currency", nil), ("percent", nil), ("percent", "1"), ("number", nil),
      ("number", "0"), ("number", "3"),
    ]
    for rounding in RoundingMode.allCases {
      var formatter = ValueFormatter(
        locale: Locale(identifier: locale), timeZone: TimeZone(identifier: "UTC")!, defaultCurrency: "SAR",
        caches: caches)
      formatter.rounding = rounding
      for value in Self.values {
        let number = JSONValue.number(try #require(JSONNumber(literal: value)))
        let decimal = try #require(Decimal(string: value, locale: Locale(identifier: "en_US_POSIX")))
        for call in calls {
          for _ in 0..<2 {  // made, then kept
            let kept = try formatter.formatNumber(number, style: call.style, argument: call.argument, at: Self.here)
            var fresh = try formatter.formatNumberAfresh(
              decimal, style: call.style, argument: call.argument, at: Self.here)
            if decimal < 0 {
              let zero = try formatter.formatNumberAfresh(0, style: call.style, argument: call.argument, at: Self.here)
              let positive = try formatter.formatNumberAfresh(
                -decimal, style: call.style, argument: call.argument, at: Self.here)
              if positive == zero { fresh = zero }
            }
            #expect(kept == fresh, "\(locale) \(rounding) \(value) \(call)")
          }
        }
      }
    }
  }

  @Test func aMissingCurrencyFailsEveryTime() throws {
    let formatter = ValueFormatter(
      locale: Locale(identifier: "de_DE"), timeZone: .gmt, defaultCurrency: nil, caches: MarkupCaches())
    for _ in 0..<2 {
      #expect(throws: TemplateError.self) {
        try formatter.formatNumber(
          .number(JSONNumber(literal: "1.5")!), style: "currency", argument: nil, at: Self.here)
      }
    }
  }
}
