public import Foundation

/// One ticket of an order: which printer gets it, with which template, and which of the order's
/// items it shows. A restaurant has a `counter` route (the receipt, every item), a `kitchen`
/// route (`station == 'kitchen'`) and a `bar` route (`station == 'bar'`).
public struct Route: Sendable, Equatable, Codable {
  /// The route's name (`kitchen`); tickets and metrics are labelled with it.
  public var name: String
  /// The printer that prints it (a daemon printer name, or for the CLI a printer address).
  public var printer: String
  /// The template, a name in the templates directory.
  public var template: String
  /// The member path of the order's item array (default `items`).
  public var items: String?
  /// An expression on each item: the ticket shows the items for which it holds.
  public var filter: String?
  /// An expression on the ticket's order (its items filtered): the ticket prints when it holds.
  /// Default: when items are left (with a filter), always (without).
  public var when: String?
  /// Copies of the ticket (1…99, default 1).
  public var copies: Int?
  /// Where the ticket prints while its printer cannot (stopped, out of paper, unreachable).
  public var fallback: String?
  /// What the ticket is called on paper (`KITCHEN`); default: the name in capitals.
  public var label: String?

  /// Creates a route.
  public init(
    name: String, printer: String, template: String, items: String? = nil, filter: String? = nil,
    when: String? = nil, copies: Int? = nil, fallback: String? = nil, label: String? = nil
  ) {
    self.name = name
    self.printer = printer
    self.template = template
    self.items = items
    self.filter = filter
    self.when = when
    self.copies = copies
    self.fallback = fallback
    self.label = label
  }

  /// The label printed on the ticket and on fallback banners.
  public var displayLabel: String { label ?? name.uppercased() }

  /// The route's item rule (expressions checked).
  func rule() throws -> TicketRule {
    try ReceiptError.wrapping {
      try TicketRule(name: "route '\(name)'", items: items ?? "items", filter: filter, condition: when)
    }
  }
}

/// One ticket an order produces: its route and its order data (items filtered).
public struct Ticket: Sendable {
  public var route: Route
  /// The order as the ticket's template sees it, as compact JSON.
  public var data: Data
  public var copies: Int { route.copies ?? 1 }
}

extension ReceiptEngine {
  /// Checks routes against the printers and templates there are: names unique and plain,
  /// printers and fallbacks known (and different), templates present, expressions valid, copies
  /// 1…99. Each error names the route and how to fix it.
  public static func checkRoutes(_ routes: [Route], printers: [String], templates: URL) throws {
    guard !routes.isEmpty else { return }
    var seen: Set<String> = []
    let library = try ReceiptError.wrapping { try TemplateLibrary(directory: templates) }
    for route in routes {
      let plain = route.name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
      guard !route.name.isEmpty, route.name.count <= 64, plain else {
        throw ReceiptError(.data, "route name '\(route.name)' must be 1 to 64 letters, digits, - or _")
      }
      guard seen.insert(route.name).inserted else {
        throw ReceiptError(.data, "route names must be unique: '\(route.name)' is used twice")
      }
      for (field, printer) in [("printer", route.printer), ("fallback", route.fallback)] {
        guard let printer, !printers.contains(printer) else { continue }
        throw ReceiptError(
          .data,
          "route '\(route.name)': \(field) '\(printer)' is not a configured printer; printers: \(printers.joined(separator: ", "))"
        )
      }
      if route.fallback == route.printer {
        throw ReceiptError(.data, "route '\(route.name)': the fallback must be another printer than '\(route.printer)'")
      }
      guard library.isTemplate(route.template) else {
        throw ReceiptError(.data, "route '\(route.name)': no template named '\(route.template)' in \(templates.path)")
      }
      guard (1...99).contains(route.copies ?? 1) else {
        throw ReceiptError(.data, "route '\(route.name)': copies must be 1 to 99")
      }
      _ = try route.rule()
    }
  }

  /// The tickets an order produces on `routes`, in the routes' order (a route whose condition
  /// fails gives none). The order must be a JSON object; a filter that fails on it is an error
  /// of the order's data.
  public static func tickets(for order: Data, routes: [Route], templates: URL) throws -> [Ticket] {
    try ReceiptError.wrapping {
      let value = try JSONValue.parseOrder(order)
      let library = try TemplateLibrary(directory: templates)
      return try routes.compactMap { route in
        guard let data = try route.rule().ticket(for: value, library: library) else { return nil }
        // Unfiltered, the order stays as it was sent, byte for byte.
        return Ticket(route: route, data: route.filter == nil ? order : data.serialized)
      }
    }
  }
}

extension TemplateOptions {
  /// The variables the shipped templates read on a ticket: `$reprint` (a reprint's number, from
  /// 1) and `$ticket` with `route`, `label`, and `fallbackFor` (the label of the printer the
  /// ticket was meant for, set when it prints on a fallback) and `interrupted` (how many earlier
  /// prints of it were interrupted or never confirmed by the printer).
  public static func ticketVariables(
    route: String?, label: String?, fallbackFor: String?, reprint: Int, interrupted: Int = 0
  ) -> [String: JSONValue] {
    var variables: [String: JSONValue] = [:]
    if reprint > 0 { variables["reprint"] = .number(JSONNumber(reprint)) }
    var ticket: [String: JSONValue] = [:]
    if let route { ticket["route"] = .string(route) }
    if let label { ticket["label"] = .string(label) }
    if let fallbackFor { ticket["fallbackFor"] = .string(fallbackFor) }
    if interrupted > 0 { ticket["interrupted"] = .number(JSONNumber(interrupted)) }
    if !ticket.isEmpty { variables["ticket"] = .object(ticket) }
    return variables
  }
}
