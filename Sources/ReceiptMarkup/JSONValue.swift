public import Foundation
import ReceiptModel

/// Order data: any JSON value, addressed by paths such as `order.items[0].price`.
///
/// Equality is by value: object members in any order, arrays in order, numbers by their
/// decimal value (`1.50 == 1.5`), so two requests compare the way a person reading them would.
public enum JSONValue: Hashable, Sendable {
  case null
  case bool(Bool)
  case number(JSONNumber)
  case string(String)
  case array([JSONValue])
  case object([String: JSONValue])

  /// Largest order JSON accepted.
  public static let maxBytes = 8 << 20

  /// Parses order JSON strictly (``JSONParser``), with the size limit; errors carry
  /// line:column.
  public static func parse(_ data: Data, name: String = "order") throws -> JSONValue {
    guard data.count <= maxBytes else {
      throw TemplateError(file: name, message: "order data is \(data.count) bytes; the limit is \(maxBytes)")
    }
    return try JSONParser.parse(data, name: name)
  }

  /// Parses order JSON that must be an object (an order), with a clear error otherwise.
  public static func parseOrder(_ data: Data, name: String = "order") throws -> JSONValue {
    let value = try parse(data, name: name)
    guard case .object = value else {
      throw TemplateError(
        file: name, line: 1, column: 1,
        message: "the order must be a JSON object ({\"items\": […], …}), not \(value.kind); wrap it in an object")
    }
    return value
  }

  /// What kind of value this is, for messages ("an array", "a number" …).
  public var kind: String {
    switch self {
    case .null: return "null"
    case .bool: return "a boolean"
    case .number: return "a number"
    case .string: return "a string"
    case .array: return "an array"
    case .object: return "an object"
    }
  }

  /// The value at a member name.
  subscript(key: String) -> JSONValue? {
    if case .object(let o) = self { return o[key] }
    return nil
  }

  /// Truthiness for `if`: missing, null, false, 0, "" and [] are false.
  var isTruthy: Bool {
    switch self {
    case .null: return false
    case .bool(let b): return b
    case .number(let n): return n.digits != "0"
    case .string(let s): return !s.isEmpty
    case .array(let a): return !a.isEmpty
    case .object: return true
    }
  }

  /// The value as plain text: numbers exactly as written in the order (`820982911946154508`,
  /// `4.80`), strings as they are, arrays joined with ", ".
  var text: String {
    switch self {
    case .null: return ""
    case .bool(let b): return b ? "true" : "false"
    case .number(let n): return n.literal
    case .string(let s): return s
    case .array(let a): return a.map(\.text).joined(separator: ", ")
    case .object: return ""
    }
  }

  /// The value as a number, if it is one or a numeric string ("4.80").
  var decimal: JSONNumber? {
    switch self {
    case .number(let n): return n
    case .string(let s): return JSONNumber(literal: Length.trimmed(s))
    case .bool(let b): return JSONNumber(b ? 1 : 0)
    default: return nil
    }
  }
}
