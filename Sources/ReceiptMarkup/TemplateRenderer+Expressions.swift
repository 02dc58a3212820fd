import Foundation
import ReceiptModel

/// Evaluating expressions: exact decimal arithmetic, comparisons, logic. A missing value is nil;
/// arithmetic on it is nil (the binding then prints empty with a warning naming the path), a
/// comparison or test treats it as null.
extension TemplateRenderer {
  /// Evaluates an expression; `missing` collects the paths that had no value.
  func evaluate(_ e: Expression, scope: Scope, at locator: Locator, missing: inout [DataPath]) throws -> JSONValue? {
    switch e {
    case .literal(let v, _):
      return v
    case .path(let p, _):
      let v = scope.value(at: p)
      if v == nil || v == .null { missing.append(p) }
      return v
    case .unary(.minus, let operand, let at):
      guard let v = try evaluate(operand, scope: scope, at: locator, missing: &missing), v != .null else { return nil }
      return .number(
        try arithmetic(.subtract, .number(JSONNumber(0)), v, at: at, operands: (at, operand.offset), locator))
    case .unary(.not, let operand, _):
      return .bool(!(try evaluate(operand, scope: scope, at: locator, missing: &missing)?.isTruthy ?? false))
    case .binary(.and, let l, let r, _):
      guard try evaluate(l, scope: scope, at: locator, missing: &missing)?.isTruthy ?? false else {
        return .bool(false)
      }
      return .bool(try evaluate(r, scope: scope, at: locator, missing: &missing)?.isTruthy ?? false)
    case .binary(.or, let l, let r, _):
      if try evaluate(l, scope: scope, at: locator, missing: &missing)?.isTruthy ?? false { return .bool(true) }
      return .bool(try evaluate(r, scope: scope, at: locator, missing: &missing)?.isTruthy ?? false)
    case .binary(let op, let l, let r, let at):
      let lhs = try evaluate(l, scope: scope, at: locator, missing: &missing)
      let rhs = try evaluate(r, scope: scope, at: locator, missing: &missing)
      if op.isComparison { return .bool(Self.compare(lhs ?? .null, rhs ?? .null, op)) }
      guard let lhs, let rhs, lhs != .null, rhs != .null else { return nil }
      if op == .join { return try bounded(.string(lhs.text + rhs.text), by: "'~'", at: locator(at)) }
      if op == .add, lhs.decimal == nil || rhs.decimal == nil {
        // Two texts that are no numbers join; a number never silently joins text ("3,41" + 0.19
        // is not "3,410.19").
        guard lhs.decimal == nil, rhs.decimal == nil, lhs.isText, rhs.isText else {
          throw TemplateError(locator(at), Self.mixedAddition(lhs, rhs))
        }
        return try bounded(.string(lhs.text + rhs.text), by: "'+'", at: locator(at))
      }
      return .number(try arithmetic(op, lhs, rhs, at: at, operands: (l.offset, r.offset), locator))
    case .access(let inner, let segments):
      var current = try evaluate(inner, scope: scope, at: locator, missing: &missing)
      for segment in segments {
        switch (segment, current) {
        case (.key(let k), .object(let o)?): current = o[k]
        case (.index(let n), .array(let a)?): current = n < a.count ? a[n] : nil
        default: current = nil
        }
      }
      return current
    case .piped(let inner, let calls):
      var value = try evaluate(inner, scope: scope, at: locator, missing: &missing)
      var zone: TimeZone?
      for call in calls { value = try apply(call, to: value, zone: &zone, scope: scope, at: locator) }
      return value
    }
  }

  /// Why `+` refuses a number and a text that is not one, with both values and the fixes.
  static func mixedAddition(_ lhs: JSONValue, _ rhs: JSONValue) -> String {
    func describe(_ v: JSONValue) -> String {
      v.decimal != nil ? "\(v.quotedForMessage) (a number)" : "\(v.quotedForMessage) (text, not a number)"
    }
    let text = lhs.decimal == nil ? lhs : rhs
    var fix = "to join them as text write '~' instead of '+'"
    if text.text.contains(","), JSONValue.string(text.text.replacingOccurrences(of: ",", with: ".")).decimal != nil {
      fix =
        "a decimal comma is no number in the data (write \"\(text.text.replacingOccurrences(of: ",", with: "."))\"); "
        + fix
    }
    return "'+' adds numbers, but \(describe(lhs)) and \(describe(rhs)) are not both numbers; \(fix)"
  }

  /// `+ - * /` on exact decimals; a result that would need more than 38 digits is an error,
  /// never a silently rounded number (division rounds to 38 digits, as it must).
  private func arithmetic(
    _ op: Expression.BinaryOperator, _ lhs: JSONValue, _ rhs: JSONValue, at: Int, operands: (Int, Int),
    _ locator: Locator
  ) throws -> JSONNumber {
    var a = try ValueFormatter.decimal(lhs, for: "'\(op.rawValue)'", at: locator(operands.0))
    var b = try ValueFormatter.decimal(rhs, for: "'\(op.rawValue)'", at: locator(operands.1))
    var result = Decimal()
    let status: NSDecimalNumber.CalculationError
    switch op {
    case .add: status = NSDecimalAdd(&result, &a, &b, .plain)
    case .subtract: status = NSDecimalSubtract(&result, &a, &b, .plain)
    case .multiply: status = NSDecimalMultiply(&result, &a, &b, .plain)
    default:
      guard !b.isZero else { throw TemplateError(locator(operands.1), "division by zero") }
      status = NSDecimalDivide(&result, &a, &b, .plain)
    }
    let checked: Bool
    switch op {
    case .divide: checked = status == .noError || status == .lossOfPrecision
    default:
      // ValueFormatter.decimal succeeded above, so both are numbers.
      let exact = JSONNumber.exact(Character(op.rawValue), lhs.decimal!, rhs.decimal!)
      checked = status == .noError && exact != nil && exact == JSONNumber(result)
    }
    guard checked, let n = JSONNumber(result) else {
      throw TemplateError(
        locator(at),
        "the result of '\(op.rawValue)' needs more than \(JSONNumber.maxArithmeticDigits) digits; arithmetic here is exact or an error"
      )
    }
    return n
  }

  /// Numbers compare as numbers, and so does a numeric string against a number ("4.80" == 4.8);
  /// two strings are equal only as text ('007' != '7') but order as numbers when both hold one
  /// ("4.80" < "12.00"); anything else is only equal or not.
  static func compare(_ l: JSONValue, _ r: JSONValue, _ op: Expression.BinaryOperator) -> Bool {
    let ordering = op != .equal && op != .notEqual
    let numeric = l.isNumber || r.isNumber || (ordering && l.isText && r.isText)
    if numeric, let a = l.decimal, let b = r.decimal {
      let ordering: ComparisonResult
      if let x = a.exactDecimal, let y = b.exactDecimal {
        ordering = x < y ? .orderedAscending : x > y ? .orderedDescending : .orderedSame
      } else {
        ordering = a == b ? .orderedSame : (a.double < b.double ? .orderedAscending : .orderedDescending)
      }
      return holds(op, ordering)
    }
    if case .string(let a) = l, case .string(let b) = r {
      return holds(op, a < b ? .orderedAscending : a > b ? .orderedDescending : .orderedSame)
    }
    switch op {
    case .equal: return l == r
    case .notEqual: return l != r
    default: return false
    }
  }

  private static func holds(_ op: Expression.BinaryOperator, _ o: ComparisonResult) -> Bool {
    switch op {
    case .equal: return o == .orderedSame
    case .notEqual: return o != .orderedSame
    case .less: return o == .orderedAscending
    case .lessOrEqual: return o != .orderedDescending
    case .greater: return o == .orderedDescending
    default: return o != .orderedAscending
    }
  }

  /// Evaluates a `test`: truthy means passed; missing values are false, never warned about.
  func test(_ text: String, scope: Scope, at locator: Locator) throws -> Bool {
    let (expression, shifted) = try parsedExpression(text, at: locator)
    var missing: [DataPath] = []
    return try evaluate(expression, scope: scope, at: shifted, missing: &missing)?.isTruthy ?? false
  }

  /// A whole attribute (`test`, `items`) parsed once per template text, with the locator of
  /// its expression (`${…}` around it is allowed).
  func parsedExpression(_ text: String, at locator: Locator) throws -> (Expression, Locator) {
    if let (e, shift) = expressionCache[ExactText(text)] { return (e, locator.shifted(by: shift)) }
    let (e, shift) = try library.caches.bindings.expression(text) {
      var source = text.trimmingCharacters(in: .whitespaces)
      var shift = text.prefix { $0.isWhitespace }.count
      if source.hasPrefix("${"), source.hasSuffix("}") {
        source = String(source.dropFirst(2).dropLast())
        shift += 2
      }
      return (try Interpolation.expression(source, at: locator.shifted(by: shift)), shift)
    }
    expressionCache[ExactText(text)] = (e, shift)
    return (e, locator.shifted(by: shift))
  }
}

extension JSONValue {
  var isNumber: Bool {
    if case .number = self { return true }
    return false
  }

  var isText: Bool {
    if case .string = self { return true }
    return false
  }
}
