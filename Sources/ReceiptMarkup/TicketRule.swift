public import Foundation

/// Which part of an order one ticket shows: the elements of the order's item array that pass a
/// filter (`station == 'kitchen'`, evaluated on each element with its members in scope, as in
/// `where:`), and a condition on the whole ticket. The ticket's order is the order with the
/// array replaced by the elements that passed. With a filter and no condition, a ticket with no
/// elements left is not printed (no empty kitchen ticket).
public struct TicketRule: Sendable {
  /// The member path of the item array (`items`, `order.lines`).
  public let items: [String]
  /// Kept per element when it holds; nil keeps every element.
  public let filter: String?
  /// The ticket prints when it holds on the filtered order; nil: when elements are left (or
  /// always, without a filter).
  public let condition: String?
  /// What the rule belongs to, for messages (`route 'kitchen'`).
  public let name: String

  /// Checks the expressions now: a mistake is an error of the configuration, not of an order.
  public init(name: String, items: String = "items", filter: String? = nil, condition: String? = nil) throws {
    let path = items.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    guard !path.isEmpty, path.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } })
    else {
      throw TemplateError(
        file: name, message: "items must be a member path such as items or order.lines, not '\(items)'")
    }
    for (field, text) in [("filter", filter), ("when", condition)] {
      guard let text else { continue }
      do {
        _ = try ExpressionParser.parse(text)
      } catch {
        throw TemplateError(
          file: name, message: "\(field) '\(text)' at column \(error.offset + 1): \(error.message)")
      }
    }
    self.name = name
    self.items = path
    self.filter = filter
    self.condition = condition
  }

  /// The ticket's order, or nil when it is not printed. Expressions use the template language's
  /// formatters (`items | count > 0`, `where:`), with the templates of `library`.
  public func ticket(for order: JSONValue, library: TemplateLibrary) throws -> JSONValue? {
    let renderer = TemplateRenderer(library: library, order: order, options: TemplateOptions())
    let locator = Locator(SourceLocation(file: name, line: 0, column: 0))
    var ticket = order
    var kept: [JSONValue]?
    if let filter {
      let (expression, _) = try renderer.parsedExpression(filter, at: locator)
      let elements: [JSONValue]
      switch order.value(at: items) {
      case .array(let a)?: elements = a
      case nil, .null?: elements = []
      case let other?:
        throw TemplateError(
          file: name, message: "\(items.joined(separator: ".")) must be an array of items, not \(other.kind)")
      }
      kept = try elements.filter { element in
        var missing: [DataPath] = []
        let scope = Scope(root: order, element: element)
        return try renderer.evaluate(expression, scope: scope, at: locator, missing: &missing)?.isTruthy ?? false
      }
      ticket = order.replacing(at: items[...], with: .array(kept!))
    }
    if let condition {
      let check = TemplateRenderer(library: library, order: ticket, options: TemplateOptions())
      return try check.test(condition, scope: Scope(root: ticket), at: locator) ? ticket : nil
    }
    if let kept, kept.isEmpty { return nil }
    return ticket
  }
}
