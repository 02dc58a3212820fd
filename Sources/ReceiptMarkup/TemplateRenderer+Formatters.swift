import Foundation

/// Formatters in a pipe: `${items | where:'rate == 7' | sum:'price * quantity' | currency}`.
/// A missing value stays missing through every formatter but `default`.
extension TemplateRenderer {
  /// Most per-element evaluations (`sum:'…'`, `where:'…'`) in one receipt.
  static let maxElementEvaluations = 1_000_000

  func apply(_ call: FormatterCall, to value: JSONValue?, zone: inout TimeZone?, scope: Scope, at locator: Locator)
    throws -> JSONValue?
  {
    let location = locator(call.offset)
    func argument(_ i: Int) -> String? {
      guard i < call.arguments.count else { return nil }
      switch call.arguments[i] {
      case .text(let s, _): return s
      case .path(let p, _): return scope.value(at: p)?.text ?? ""
      case .key(let k, _): return strings.lookup(k)
      case .expression: return nil
      }
    }
    // The arguments written in the template are checked whether or not there is a value (so
    // `validate` finds a misspelt style); those from the data when the formatter runs.
    try ValueFormatter.check(
      call.name,
      call.arguments.indices.map { i in
        switch call.arguments[i] {
        case .text, .key: argument(i)
        case .path, .expression: nil
        }
      }, at: location)
    let absent = value == nil || value == .null
    switch call.name {
    case "default":
      guard absent || value?.text == "" else { return value }
      // `default:[]`: a list (for `<repeat>`, `count`, `sum`); anything else is text.
      let fallback = argument(0) ?? ""
      return fallback == "[]" ? .array([]) : .string(fallback)
    case "timezone":
      let z = try ValueFormatter.zone(argument(0) ?? "", at: locator(call.arguments[0].offset))
      zone = z
      guard let value, !absent else { return nil }
      return try formatter.convert(value, to: z, at: location)
    default:
      break
    }
    guard let value, !absent else { return nil }
    switch call.name {
    case "currency", "number", "percent":
      return .string(try formatter.formatNumber(value, style: call.name, argument: argument(0), at: location))
    case "money":
      return .string(try formatter.formatMoney(value, argument: argument(0), at: location))
    case "round":
      return try formatter.round(value, digits: argument(0), mode: argument(1), at: location)
    case "date", "time", "datetime":
      return .string(
        try formatter.formatDate(value, style: call.name, argument: argument(0), zone: zone, at: location))
    case "map":
      return .string(try map(value.text, call: call, argument: argument(0) ?? "", at: location))
    case "count":
      switch value {
      case .array(let a): return .number(JSONNumber(a.count))
      case .object(let o): return .number(JSONNumber(o.count))
      default: return .number(JSONNumber(value.text.count))
      }
    case "sum", "min", "max", "first", "last", "where", "join":
      return try bounded(collection(call, value, scope: scope, at: locator), by: call.name, at: location)
    default:
      let arguments = call.arguments.indices.map { argument($0) ?? "" }
      return try bounded(
        .string(formatter.formatString(value.text, name: call.name, arguments: arguments, at: location)),
        by: call.name, at: location)
    }
  }

  /// `value` when its text is within ``ValueFormatter/maxValueBytes``.
  func bounded(_ value: JSONValue?, by what: String, at location: SourceLocation) throws -> JSONValue? {
    if case .string(let s)? = value { try ValueFormatter.checkSize(s.utf8.count, of: what, at: location) }
    return value
  }

  /// `map:'cash=Cash, card=Card'` or `map:@payment` (the strings' `payment.cash`); a value
  /// without an entry stays as it is.
  private func map(_ text: String, call: FormatterCall, argument: String, at location: SourceLocation) throws -> String
  {
    if case .key(let prefix, _) = call.arguments[0] {
      return strings.lookupIfPresent("\(prefix).\(text)") ?? text
    }
    for entry in argument.split(separator: ",") {
      let pair = entry.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
      guard pair.count == 2 else {
        throw TemplateError(location, "map entries read like 'cash=Cash, card=Card', not '\(entry)'")
      }
      if pair[0] == text { return pair[1] }
    }
    return text
  }

  private func collection(_ call: FormatterCall, _ value: JSONValue, scope: Scope, at locator: Locator) throws
    -> JSONValue?
  {
    let location = locator(call.offset)
    guard case .array(let elements) = value else {
      throw TemplateError(location, "\(call.name) needs an array, but the value is \(value.quotedForMessage)")
    }
    switch call.name {
    case "first": return elements.first
    case "last": return elements.last
    case "join":
      let separator: String
      if case .text(let s, _)? = call.arguments.first { separator = s } else { separator = ", " }
      return .string(elements.map(\.text).joined(separator: separator))
    case "where":
      return .array(try elements.filter { try element($0, call: call, scope: scope, at: locator)?.isTruthy ?? false })
    case "sum":
      var total = Decimal()
      for (i, e) in elements.enumerated() {
        guard let v = try operand(e, index: i, of: elements.count, call: call, scope: scope, at: locator) else {
          continue
        }
        var term = try ValueFormatter.decimal(v, for: "sum (element \(i + 1))", at: location)
        var before = total
        guard NSDecimalAdd(&total, &before, &term, .plain) == .noError else {
          throw TemplateError(location, "the sum needs more than \(JSONNumber.maxArithmeticDigits) digits")
        }
      }
      return .number(JSONNumber(total) ?? JSONNumber(0))
    default:  // min, max
      var best: JSONValue?
      for (i, e) in elements.enumerated() {
        guard let v = try operand(e, index: i, of: elements.count, call: call, scope: scope, at: locator) else {
          continue
        }
        guard let current = best else {
          best = v
          continue
        }
        // Numeric strings ("4.80") compare as the numbers they hold.
        let numeric = v.decimal != nil && current.decimal != nil
        let (l, r) = numeric ? (JSONValue.number(v.decimal!), JSONValue.number(current.decimal!)) : (v, current)
        if Self.compare(l, r, call.name == "min" ? .less : .greater) { best = v }
      }
      return best
    }
  }

  /// One element's operand of `sum`, `min` or `max`; nil — left out, with a warning naming the
  /// element and what it lacks (an error with `--strict`) — when it is missing or null.
  private func operand(
    _ e: JSONValue, index: Int, of count: Int, call: FormatterCall, scope: Scope, at locator: Locator
  ) throws -> JSONValue? {
    var missing: [DataPath] = []
    let value = try element(e, call: call, scope: scope, at: locator, missing: &missing)
    if let value, value != .null { return value }
    guard !placeholders else { return nil }
    var what = "element \(index + 1) of \(count)"
    if missing.isEmpty {
      what += " is null"
    } else {
      what += " has no value at \(missing.map { "$\($0)" }.joined(separator: ", "))"
    }
    try warn(locator(call.offset), "\(call.name): \(what); left out of the \(call.name)")
    return nil
  }

  /// The value of `call`'s per-element expression for one element (the element itself without
  /// one). In it, names are the element's members first (`price`), `it` is the element.
  private func element(_ e: JSONValue, call: FormatterCall, scope: Scope, at locator: Locator) throws -> JSONValue? {
    var missing: [DataPath] = []
    return try element(e, call: call, scope: scope, at: locator, missing: &missing)
  }

  private func element(
    _ e: JSONValue, call: FormatterCall, scope: Scope, at locator: Locator, missing: inout [DataPath]
  ) throws -> JSONValue? {
    guard case .expression(let expression, let at)? = call.arguments.first else { return e }
    elementEvaluations += 1
    guard elementEvaluations <= Self.maxElementEvaluations else {
      throw TemplateError(
        locator(call.offset),
        "more than \(Self.maxElementEvaluations) per-element evaluations in one receipt; simplify the template")
    }
    var inner = scope
    inner.element = e
    return try evaluate(expression, scope: inner, at: locator.shifted(by: at), missing: &missing)
  }
}
