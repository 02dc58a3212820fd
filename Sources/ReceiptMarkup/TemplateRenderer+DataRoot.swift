/// The data root: `<receipt root="order">` binds `$paths` under the order's `order` member, as
/// Square's Orders API (`{"order": {…}}`) and many webhooks wrap an order. `$order` is then that
/// member, and `$reference_id` one of its fields. Data without the member binds as it is, so one
/// template prints the wrapped and the bare order alike.
extension TemplateRenderer {
  /// Re-roots ``order`` at the member `root` names, if the template names one and the data has it.
  func enterDataRoot(of receipt: MarkupNode) throws {
    guard let text = receipt.attribute("root") else { return }
    let spelled = text.hasPrefix("$") ? String(text.dropFirst()) : text
    guard let path = DataPath(spelled), case .key = path.segments.first else {
      throw TemplateError(
        receipt.location, "root=\"\(text)\" must be a path into the order data, such as root=\"order\"")
    }
    // The member itself, even when it is called `order` (which in a path is the data's alias).
    var rest = path.segments
    guard case .key(let first) = rest.removeFirst() else { return }
    let member =
      rest.isEmpty
      ? order[first] : order[first].flatMap { Scope(root: $0).value(at: DataPath(segments: [.key("order")] + rest)) }
    switch member {
    case nil, .null?: return
    case .object(let members)?:
      order = .object(members)
      if let currency = order["currency"] { formatter.defaultCurrency = currency.text }
    case let other?:
      throw TemplateError(
        receipt.location, "root=\"\(text)\" names \(other.kind) in the order data; the root must be an object")
    }
  }

  /// The member of the data root under which a missing `path` has a value (`order` for
  /// `$order.reference_id` in `{"order": {"reference_id": …}}`), for the error's hint; nil when
  /// the path does not start at the data root or no member holds it.
  func memberHolding(_ path: DataPath, scope: Scope) -> String? {
    guard case .object(let members) = order, case .key(let first) = path.segments[0] else { return nil }
    var segments = path.segments
    if first == "order", segments.count > 1 {
      segments.removeFirst()
    } else if scope.element != nil || scope.repeats.contains(where: { $0.name == first }) || first == "loop"
      || scope.variables[first] != nil
    {
      return nil
    }
    for name in members.keys.sorted() {
      guard case .object = members[name] else { continue }
      if Scope(root: members[name]!).value(at: DataPath(segments: segments)) != nil { return name }
    }
    return nil
  }
}
