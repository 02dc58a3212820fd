package import Foundation
import ReceiptKit

/// A preview request (`POST /v1/render`): a job's fields, or the template's text itself
/// (`source`, the designer's editor) with the paper or printer model to lay it out for.
package struct RenderRequest {
  /// The template's name (a file, or the name the unsaved `source` will have).
  var template: String
  /// The template's text when it is not a saved file.
  var source: Data?
  var data: Data
  var locale: String?
  var paper: Paper?
  var model: PrinterModel?

  /// The fields a preview may have: a job's, and `source`, `paper`, `model`.
  enum Field: String, RequestField {
    case template, data, printer, copies, locale, source, paper, model
  }

  package init(body raw: Data, configuration: ReceiptServer.Configuration) throws {
    let members = try RequestBody.members(raw, as: Field.self, what: "a preview")
    switch (members[.template], members[.source]) {
    case (.string(let name)?, nil):
      guard (try? TemplateLibrary(directory: configuration.templates))?.isTemplate(name) == true else {
        throw Problem.unprocessable("no template named '\(name)'", field: "template")
      }
      template = name
    case (let name, .string(let text)?):
      guard case .string(let given)? = name ?? .string("template") else {
        throw Problem.badRequest("template must be a string", field: "template")
      }
      guard TemplateName.isPlain(given) else { throw TemplateName.problem(given, field: "template") }
      template = given
      source = Data(text.utf8)
    case (nil, nil):
      throw Problem.badRequest(
        "template (a name in the templates directory) or source (a template's XML) is required", field: "template")
    default:
      throw Problem.badRequest(
        "template and source must be strings", field: members[.source] == nil ? "template" : "source")
    }
    guard case .object? = members[.data], let bytes = members.bytes(of: .data) else {
      throw Problem.badRequest("data must be the order as a JSON object", field: "data")
    }
    data = bytes
    locale = try JobRequest.locale(members[.locale])
    switch members[.paper] {
    case nil, .null?: break
    case .string(let text)?:
      guard let parsed = Paper(parsing: text) else {
        throw Problem.badRequest("paper must be 58mm, 80mm, 112mm or a width such as 76mm", field: "paper")
      }
      paper = parsed
    default: throw Problem.badRequest("paper must be a string such as 80mm", field: "paper")
    }
    switch members[.model] {
    case nil, .null?: break
    case .string(let name)?:
      guard name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else {
        throw Problem.badRequest("model must be a printer model's name (GET /v1/models)", field: "model")
      }
      do { model = try PrinterModel.named(name) } catch {
        throw Problem.unprocessable("\(error)", field: "model")
      }
    default: throw Problem.badRequest("model must be a printer model's name (GET /v1/models)", field: "model")
    }
  }

  /// The binding options: locale, paper, and the model's head.
  var options: TemplateOptions {
    var options = TemplateOptions(locale: locale, printHead: model?.printHead, paper: paper)
    options.modelName = model?.name
    return options
  }
}

/// Names of templates the API reads and writes: the library's plain names, and none that
/// starts with `-` (a file a shell would take for an option).
enum TemplateName {
  static func isPlain(_ name: String) -> Bool {
    TemplateLibrary.isPlainName(name) && name.first != "-"
  }

  static func problem(_ name: String, field: String? = nil) -> Problem {
    Problem.badRequest(
      "'\(name.prefix(80))' is not a template name: use 1 to 64 letters, digits, '-' and '_' (no paths, no extension)",
      field: field)
  }
}
