import Foundation
@_spi(Internals) import ReceiptModel

/// `money`: amounts in minor units — integer cents, yen, fils — as Square, Stripe, Adyen and most
/// payment APIs send them, with an ISO 4217 code. The amount is scaled by the currency's own
/// fraction digits (ICU's currency data: 0 for JPY, 2 for EUR, 3 for BHD) exactly — digits and a
/// power of ten, never a binary fraction — and then written as ``formatNumber`` writes
/// `currency` (the same rounding, signs and kept strings).
extension ValueFormatter {
  /// The members an amount object may hold its minor units in: Square's and Stripe's `amount`,
  /// Adyen's `value`.
  static let amountMembers = ["amount", "value"]
  /// The members an amount object may name its currency in.
  static let currencyMembers = ["currency", "currency_code"]

  /// `money[:CODE]` of `value`: an object with an integer amount and a currency code
  /// (`{"amount": 1250, "currency": "EUR"}`), or an integer amount whose code is the argument,
  /// else the `currency` of the receipt or of the order.
  func formatMoney(_ value: JSONValue, argument: String?, at location: SourceLocation) throws -> String {
    var amount = value
    var code = argument?.uppercased()
    if case .object(let members) = value {
      guard let inner = Self.amountMembers.lazy.compactMap({ members[$0] }).first else {
        throw TemplateError(
          location,
          "money needs an object with an integer \"amount\" (or \"value\") and a \"currency\", or an integer such as 1250 with money:EUR; this object has \(members.keys.sorted().prefix(6).joined(separator: ", "))"
        )
      }
      amount = inner
      if let named = Self.currencyMembers.lazy.compactMap({ members[$0] }).first, named != .null {
        let own = named.text.uppercased()
        if let code, code != own {
          throw TemplateError(
            location, "the amount is in \(own), but money:\(argument ?? "") asks for \(code); write just money")
        }
        code = own
      }
    }
    guard let code = code ?? defaultCurrency?.uppercased() else {
      throw TemplateError(
        location,
        "money needs an ISO 4217 code: an object with \"currency\", ${path | money:EUR}, money:$order.currency, or currency=\"EUR\" on <receipt>"
      )
    }
    try Self.currency(code, at: location)
    let (number, _) = try Self.number(amount, for: "money", at: location)
    guard number.isInteger else {
      throw TemplateError(
        location,
        "money takes an amount in minor units, a whole number (1250 for 12.50 \(code)), not \(number.literal); for an amount in \(code) itself write currency"
      )
    }
    let digits = Self.minorUnitDigits(of: code)
    let sign = number.negative ? "-" : ""
    guard let scaled = JSONNumber(literal: "\(sign)\(number.digits)e\(number.exponent - digits)") else {
      throw TemplateError(location, "money cannot read the amount \(number.literal)")
    }
    return try formatNumber(.number(scaled), style: "currency", argument: code, at: location)
  }

  /// Fraction digits of a currency's minor unit, from ICU's currency data (through Foundation's
  /// currency format, which writes exactly that many): kept per code.
  static func minorUnitDigits(of code: String) -> Int {
    if let kept = minorDigits.withLock({ $0[code] }) { return kept }
    let one = Decimal(1).formatted(.currency(code: code).locale(Locale(identifier: "en_US_POSIX")))
    var digits = 0
    if let point = one.lastIndex(of: ".") {
      digits = one[one.index(after: point)...].prefix { $0.isASCII && $0.isNumber }.count
    }
    minorDigits.withLock { $0[code] = digits }
    return digits
  }

  /// The currencies' digits asked for so far (at most the ~300 ISO 4217 codes: bounded).
  private static let minorDigits = Locked([String: Int]())
}
