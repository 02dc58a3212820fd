public import Foundation

extension JSONValue {
  /// The value as compact JSON: members sorted by name, numbers exactly as they were written
  /// (`820982911946154508`, `4.80`), strings escaped as RFC 8259 asks. Parsing the result gives
  /// an equal value.
  public var serialized: Data {
    var out = ""
    write(to: &out)
    return Data(out.utf8)
  }

  private func write(to out: inout String) {
    switch self {
    case .null: out += "null"
    case .bool(let b): out += b ? "true" : "false"
    case .number(let n): out += n.literal
    case .string(let s): Self.quote(s, into: &out)
    case .array(let elements):
      out += "["
      for (i, element) in elements.enumerated() {
        if i > 0 { out += "," }
        element.write(to: &out)
      }
      out += "]"
    case .object(let members):
      out += "{"
      for (i, key) in members.keys.sorted().enumerated() {
        if i > 0 { out += "," }
        Self.quote(key, into: &out)
        out += ":"
        members[key]!.write(to: &out)
      }
      out += "}"
    }
  }

  private static func quote(_ s: String, into out: inout String) {
    out += "\""
    for scalar in s.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      case _ where scalar.value < 0x20:
        let hex = String(scalar.value, radix: 16)
        out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: out.unicodeScalars.append(scalar)
      }
    }
    out += "\""
  }

  /// The value at a member path (`["items"]`, `["order", "lines"]`).
  public func value(at path: [String]) -> JSONValue? {
    var current: JSONValue? = self
    for key in path { current = current?[key] }
    return current
  }

  /// The value with the member at `path` replaced (the objects on the way must exist).
  func replacing(at path: ArraySlice<String>, with value: JSONValue) -> JSONValue {
    guard let key = path.first, case .object(var members) = self else { return value }
    members[key] = (members[key] ?? .null).replacing(at: path.dropFirst(), with: value)
    return .object(members)
  }
}
