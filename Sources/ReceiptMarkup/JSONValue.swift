import Foundation

/// Order data: any JSON value, addressed by paths such as `order.items[0].price`.
public enum JSONValue: Hashable, Sendable, Decodable {
  case null
  case bool(Bool)
  case number(Double)
  case string(String)
  case array([JSONValue])
  case object([String: JSONValue])

  public init(from decoder: Decoder) throws {
    let c = try decoder.singleValueContainer()
    if c.decodeNil() {
      self = .null
    } else if let b = try? c.decode(Bool.self) {
      self = .bool(b)
    } else if let n = try? c.decode(Double.self) {
      self = .number(n)
    } else if let s = try? c.decode(String.self) {
      self = .string(s)
    } else if let a = try? c.decode([JSONValue].self) {
      self = .array(a)
    } else {
      self = .object(try c.decode([String: JSONValue].self))
    }
  }

  /// Largest order JSON accepted.
  public static let maxBytes = 8 << 20

  /// Parses JSON bytes, with a clear error for size and syntax problems.
  public static func parse(_ data: Data, name: String = "order") throws -> JSONValue {
    guard data.count <= maxBytes else {
      throw TemplateError(file: name, message: "order data is \(data.count) bytes; the limit is \(maxBytes)")
    }
    do {
      return try JSONDecoder().decode(JSONValue.self, from: data)
    } catch let DecodingError.dataCorrupted(context) {
      let reason = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
      throw TemplateError(file: name, message: "invalid JSON: \(reason ?? context.debugDescription)")
    } catch {
      throw TemplateError(file: name, message: "invalid JSON: \(error)")
    }
  }

  /// The value at a member name or index.
  subscript(key: String) -> JSONValue? {
    if case .object(let o) = self { return o[key] }
    return nil
  }

  /// Truthiness for `if`: missing, null, false, 0, "" and [] are false.
  var isTruthy: Bool {
    switch self {
    case .null: return false
    case .bool(let b): return b
    case .number(let n): return n != 0
    case .string(let s): return !s.isEmpty
    case .array(let a): return !a.isEmpty
    case .object: return true
    }
  }

  /// The value as plain text (numbers without a needless ".0").
  var text: String {
    switch self {
    case .null: return ""
    case .bool(let b): return b ? "true" : "false"
    case .number(let n): return n == n.rounded() && abs(n) < 1e15 ? String(Int64(n)) : String(n)
    case .string(let s): return s
    case .array(let a): return a.map(\.text).joined(separator: ", ")
    case .object: return ""
    }
  }

  /// The value as a number, if it is one or a numeric string.
  var number: Double? {
    switch self {
    case .number(let n): return n
    case .string(let s): return Double(s.trimmingCharacters(in: .whitespaces))
    case .bool(let b): return b ? 1 : 0
    default: return nil
    }
  }
}
