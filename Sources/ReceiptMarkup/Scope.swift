/// Variables visible at a point of a template: `order` (the whole order JSON), `repeat`
/// variables and `loop` (index, number, first, last). Paths that start with an unknown name
/// are looked up in the order itself, so `$customer.name` and `$order.customer.name` agree.
/// Inside a per-element expression (`sum:'price * quantity'`) the element's members come first
/// and `it` is the element.
struct Scope {
  var root: JSONValue
  var variables: [String: JSONValue] = [:]
  var element: JSONValue?
  /// The `repeat`s around this point, innermost last: each binds its name, and the innermost
  /// one is `loop`. Kept as positions, not as JSON: a receipt repeats a couple of hundred
  /// times, and few templates ask for `loop` at all.
  var repeats: [Repeat] = []

  struct Repeat {
    var name: String
    var item: JSONValue
    var index: Int
    var count: Int

    /// `loop`: index (from 0), number (from 1), count, first, last.
    var loop: JSONValue {
      .object([
        "index": .number(JSONNumber(index)), "number": .number(JSONNumber(index + 1)),
        "count": .number(JSONNumber(count)), "first": .bool(index == 0), "last": .bool(index == count - 1),
      ])
    }
  }

  func value(at path: DataPath) -> JSONValue? {
    guard case .key(let first) = path.segments[0] else { return nil }
    var current: JSONValue?
    if let element, first == "it" {
      current = element
    } else if let member = element?[first] {
      current = member
    } else if let bound = repeats.last(where: { $0.name == first }) {
      current = bound.item
    } else if first == "loop", let innermost = repeats.last {
      current = innermost.loop
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
