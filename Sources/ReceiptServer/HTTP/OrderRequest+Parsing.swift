import Foundation
import ReceiptKit

/// The fields an order request may have.
enum OrderRequestField: String, RequestField {
  case data, locale, routes, email
}

extension OrderRequest {
  /// Parses an order body (`{data, locale?, routes?}`) strictly and makes its tickets with the
  /// configured routes (all of them, or those `routes` names): unknown fields, duplicate keys and
  /// wrong types are 400; an unknown route or locale, a filter that fails on the data, or an order
  /// that no route prints is 422. The order is kept as the exact bytes that were checked.
  init(body raw: Data, configuration: ReceiptServer.Configuration) throws {
    let members = try RequestBody.members(raw, as: OrderRequestField.self, what: "an order")
    guard !configuration.routes.isEmpty else {
      throw Problem.unprocessable(
        "the daemon has no routes; add \"routes\" to its configuration file (see the README), or use POST /v1/jobs")
    }
    guard case .object? = members[.data], let data = members.bytes(of: .data) else {
      throw Problem.badRequest("data must be the order as a JSON object", field: "data")
    }
    guard data.count <= JSONValue.maxBytes else {
      throw Problem.badRequest(
        "data is \(data.count) bytes; orders are limited to \(JSONValue.maxBytes)", field: "data")
    }
    let locale = try JobRequest.locale(members[.locale])
    var selected = configuration.routes
    var asked: [String]?
    switch members[.routes] {
    case nil, .null?: break
    case .array(let list)?:
      let known = configuration.routes.map(\.name)
      asked = try list.map { value in
        guard case .string(let name) = value, known.contains(name) else {
          throw Problem.unprocessable(
            "routes must name configured routes: \(known.joined(separator: ", "))", field: "routes")
        }
        return name
      }
      guard !asked!.isEmpty else { throw Problem.badRequest("routes must not be empty", field: "routes") }
      selected = configuration.routes.filter { asked!.contains($0.name) }
    default: throw Problem.badRequest("routes must be an array of route names", field: "routes")
    }
    let tickets: [Ticket]
    do {
      tickets = try ReceiptEngine.tickets(for: data, routes: selected, templates: configuration.templates)
    } catch let error as ReceiptError {
      throw Problem.unprocessable(error.message, field: "data")
    }
    guard !tickets.isEmpty else {
      throw Problem.unprocessable(
        "no route prints this order (routes \(selected.map(\.name).joined(separator: ", ")): their filters left no items)",
        field: "data")
    }
    self.init(
      data: data, locale: locale, routes: asked,
      tickets: try tickets.map { ticket in
        var job = JobRequest(
          printer: ticket.route.printer, template: ticket.route.template, data: ticket.data, locale: locale,
          copies: ticket.copies)
        job.route = ticket.route.name
        job.label = ticket.route.displayLabel
        job.fallback = ticket.route.fallback
        // A route to an e-mail destination: the order's address (or the request's `email`).
        if let destination = configuration.printers.first(where: { $0.name == ticket.route.printer }),
          case .mail = destination.target.delivery
        {
          job.recipient = try JobRequest.recipient(members[.email], data: ticket.data, destination: destination)
        }
        return job
      })
  }

  /// What differs between this request and a stored order (its data compared as JSON values).
  func differences(from order: Order) -> [String] {
    var fields: [String] = []
    if order.locale != locale { fields.append("locale") }
    if order.routes != routes { fields.append("routes") }
    if order.data != data {
      let stored = try? JSONParser.parse(order.data)
      if stored == nil || stored != (try? JSONParser.parse(data)) { fields.append("data") }
    }
    return fields
  }
}
