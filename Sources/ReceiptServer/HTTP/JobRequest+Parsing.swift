package import Foundation
import ReceiptKit

/// The fields a job request may have.
enum JobRequestField: String, RequestField {
  case template, data, printer, copies, locale, email
}

extension JobRequest {
  /// Parses and checks a job request body (`{template, data, printer?, copies?, locale?}`) in one
  /// strict parse: unknown fields, duplicate keys and wrong types are 400; an unknown template
  /// or printer is 422. The order is kept as the exact bytes that were checked.
  package init(body raw: Data, configuration: ReceiptServer.Configuration) throws {
    let members = try RequestBody.members(raw, as: JobRequestField.self, what: "a job")
    guard case .string(let template)? = members[.template], !template.isEmpty else {
      throw Problem.badRequest(
        members[.template] == nil
          ? "template is required (a name in the templates directory)" : "template must be a string",
        field: "template")
    }
    guard (try? TemplateLibrary(directory: configuration.templates))?.isTemplate(template) == true else {
      throw Problem.unprocessable("no template named '\(template)'", field: "template")
    }
    guard case .object? = members[.data], let data = members.bytes(of: .data) else {
      throw Problem.badRequest("data must be the order as a JSON object", field: "data")
    }
    let printer: String
    switch members[.printer] {
    case nil, .null?: printer = configuration.effectiveDefaultPrinter ?? ""
    case .string(let name)?: printer = name
    default: throw Problem.badRequest("printer must be a string", field: "printer")
    }
    guard configuration.printers.contains(where: { $0.name == printer }) else {
      throw Problem.unprocessable(
        "no printer named '\(printer)'; printers: \(configuration.printers.map(\.name).joined(separator: ", "))",
        field: "printer")
    }
    var copies = 1
    switch members[.copies] {
    case nil, .null?: break
    case .number(let n)?:
      guard n.isInteger, let value = n.plainDecimal(limit: 4).flatMap({ Int($0) }), (1...99).contains(value) else {
        throw Problem.badRequest("copies must be an integer from 1 to 99", field: "copies")
      }
      copies = value
    default: throw Problem.badRequest("copies must be an integer from 1 to 99", field: "copies")
    }
    let locale = try Self.locale(members[.locale])
    guard data.count <= JSONValue.maxBytes else {
      throw Problem.badRequest(
        "data is \(data.count) bytes; orders are limited to \(JSONValue.maxBytes)", field: "data")
    }
    self.init(printer: printer, template: template, data: data, locale: locale, copies: copies)
    let destination = configuration.printers.first { $0.name == printer }!
    recipient = try Self.recipient(members[.email], data: data, destination: destination)
  }

  /// The address of an e-receipt to `destination`: the request's `email`, else the order's
  /// `email`, else its `customer.email`; nil for a printer. A `mail:` destination without a fixed
  /// address needs one (422); a printer, or a destination with one, takes no `email` (422).
  static func recipient(_ given: JSONValue?, data: Data, destination: PrinterConfig) throws -> String? {
    var explicit: String?
    switch given {
    case nil, .null?: break
    case .string(let address)?: explicit = address
    default: throw Problem.badRequest("email must be a string (an e-mail address)", field: "email")
    }
    guard case .mail(let fixed) = destination.target.delivery else {
      if explicit != nil {
        throw Problem.unprocessable(
          "printer '\(destination.name)' is not an e-mail destination (mail:); leave out email", field: "email")
      }
      return nil
    }
    if let fixed {
      if explicit != nil {
        throw Problem.unprocessable(
          "'\(destination.name)' sends every receipt to \(fixed); leave out email", field: "email")
      }
      return nil
    }
    var address = explicit
    if address == nil, let order = try? JSONParser.parse(data) {
      func member(_ value: JSONValue?, _ name: String) -> JSONValue? {
        if case .object(let members)? = value { members[name] } else { nil }
      }
      if case .string(let found)? = member(order, "email") ?? member(member(order, "customer"), "email") {
        address = found
      }
    }
    guard let address, !address.isEmpty else {
      throw Problem.unprocessable(
        "'\(destination.name)' e-mails each receipt: give email, or put the address in the order's email or customer.email",
        field: "email")
    }
    guard MailMessage.isAddress(address) else {
      throw Problem.unprocessable(
        "email '\(address.prefix(80))' is not an e-mail address (local@domain)", field: "email")
    }
    return address
  }

  /// A request's `locale` member checked: nil, or a known locale identifier.
  static func locale(_ value: JSONValue?) throws -> String? {
    switch value {
    case nil, .null?: return nil
    case .string(let value)?:
      guard (2...35).contains(value.count), value.allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "_" || $0 == "-") })
      else {
        throw Problem.badRequest("locale must be a locale identifier such as de_DE or ja-JP", field: "locale")
      }
      guard TemplateLocale.isKnown(value) else {
        throw Problem.unprocessable(
          "unknown locale '\(value)'; give a language and region such as de_DE or ja_JP", field: "locale")
      }
      return value
    default: throw Problem.badRequest("locale must be a string such as de_DE", field: "locale")
    }
  }

  /// What differs between this request and a stored job: the template, printer, copies, locale,
  /// and the order as a JSON value (member order, spacing and number spelling aside: `1.50` and
  /// `1.5` are the same price). Compared as values, never through Foundation's equality, which
  /// differs between the static and the dynamic build. Empty: it is the same request.
  func differences(from job: Job) -> [String] {
    var fields: [String] = []
    if job.template != template { fields.append("template") }
    if job.printer != printer { fields.append("printer") }
    if job.copies != copies { fields.append("copies") }
    if job.locale != locale { fields.append("locale") }
    if job.recipient != recipient { fields.append("email") }
    if job.data != data {
      let stored = try? JSONParser.parse(job.data)
      if stored == nil || stored != (try? JSONParser.parse(data)) { fields.append("data") }
    }
    return fields
  }
}
