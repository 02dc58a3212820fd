@_spi(Internals) import ReceiptModel

/// Attribute and text bindings (and texts' `@key` words) already parsed, shared by every receipt
/// of the process: a batch or a daemon binds the same template texts thousands of times, and
/// parsing them was a tenth of binding. A parse depends on the text alone (offsets are relative to it; errors are not kept),
/// so the text is the key (its bytes: see `ExactText`). Bounded: texts of at most ``maximumTextLength`` characters, at most
/// ``capacity`` of each kind; when full it starts again empty.
final class ParsedBindings: Sendable {
  static let capacity = 8_192
  static let maximumTextLength = 1_024

  private let interpolations = Locked<[ExactText: [Interpolation.Part]]>([:])
  private let expressions = Locked<[ExactText: (Expression, Int)]>([:])
  private let localizations = Locked<[ExactText: [LocalizedStrings.Part]]>([:])

  /// A text's parts, parsing it with `parse` the first time.
  func interpolation(_ text: String, parse: () throws -> [Interpolation.Part]) rethrows -> [Interpolation.Part] {
    if let parts = interpolations.withLock({ $0[ExactText(text)] }) { return parts }
    let parts = try parse()
    if text.utf8.count <= Self.maximumTextLength { Self.keep(parts, for: text, in: interpolations) }
    return parts
  }

  /// A whole-attribute expression and the offset of its start in the text, parsing it with
  /// `parse` the first time.
  func expression(_ text: String, parse: () throws -> (Expression, Int)) rethrows -> (Expression, Int) {
    if let parsed = expressions.withLock({ $0[ExactText(text)] }) { return parsed }
    let parsed = try parse()
    if text.utf8.count <= Self.maximumTextLength { Self.keep(parsed, for: text, in: expressions) }
    return parsed
  }

  /// A text's `@key` words and the text around them, found with `parse` the first time.
  func localization(_ text: String, parse: () -> [LocalizedStrings.Part]) -> [LocalizedStrings.Part] {
    if let parts = localizations.withLock({ $0[ExactText(text)] }) { return parts }
    let parts = parse()
    if text.utf8.count <= Self.maximumTextLength { Self.keep(parts, for: text, in: localizations) }
    return parts
  }

  private static func keep<Value: Sendable>(
    _ value: Value, for text: String, in table: Locked<[ExactText: Value]>
  ) {
    table.withLock { table in
      if table.count >= capacity { table.removeAll(keepingCapacity: true) }
      table[ExactText(text)] = value
    }
  }

}
