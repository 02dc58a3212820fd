import Foundation
@_spi(Internals) import ReceiptModel

/// Numbers already written, by everything that decides the text: a menu's prices, tax rates and
/// quantities come back receipt after receipt (a batch of thousands, a daemon's day), and ICU's
/// formatting through `Decimal.FormatStyle` is one of a receipt's larger costs. Bounded: at most
/// ``capacity`` strings; when full it keeps those asked for again since it last filled (the
/// menu's prices) and lets go of the others (an order's total), see ``KeptTable``. Errors are
/// never kept (a missing currency fails every time).
final class NumberStrings: Sendable {
  struct Key: Hashable, Sendable {
    /// The locale's identifier (with its numbering system, `ar_SA@numbers=latn`).
    var locale: String
    /// `currency`, `percent` or `number`.
    var style: String
    /// The currency code, or the fraction digits.
    var argument: String?
    var rounding: RoundingMode
    /// The value: sign, significant digits and power of ten (`-15e-1`); one value, one key,
    /// however it was written (`1.50`, `1.5`, `15e-1`).
    var value: String
  }

  static let capacity = 8192

  private let strings = Locked(KeptTable<Key, String>(capacity: capacity))

  /// The string for `key`, made by `make` when not kept.
  func string(_ key: Key, make: () throws -> String) rethrows -> String {
    if let kept = strings.withLock({ $0.value(for: key) }) { return kept }
    let made = try make()
    _ = strings.withLock { $0.keep(made, for: key) }
    return made
  }

  /// Strings kept (tests).
  var count: Int { strings.withLock { $0.count } }
}
