/// Variables visible at a point of a template: `order` (the whole order JSON), `repeat`
/// variables and `loop` (index, number, first, last). Paths that start with an unknown name
/// are looked up in the order itself, so `$customer.name` and `$order.customer.name` agree.
/// Inside a per-element expression (`sum:'price * quantity'`) the element's members come first
/// and `it` is the element.
struct Scope {
  var root: JSONValue
  var variables: [String: JSONValue] = [:]
  var element: JSONValue?

  func value(at path: DataPath) -> JSONValue? {
    guard case .key(let first) = path.segments[0] else { return nil }
    var current: JSONValue?
    if let element, first == "it" {
      current = element
    } else if let member = element?[first] {
      current = member
    } else if let v = variables[first] {
      current = v
    } else if first == "order" {
      current = root
    } else {
      current = root[first]
    }
    for segment in path.segments.dropFirst() {
      guard let c = current else { return nil }
      switch segment {
      case .key(let k): current = c[k]
      case .index(let n):
        guard case .array(let a) = c, n < a.count else { return nil }
        current = a[n]
      }
    }
    return current
  }
}
