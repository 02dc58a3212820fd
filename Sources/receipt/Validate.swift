import ArgumentParser
import Foundation
import ReceiptCommandLine
import ReceiptKit

struct Validate: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Check a template; with --data, also bind an order to it.",
    discussion: """
      Exit 0 when the template is valid, 65 with file:line:column and the problem \
      otherwise. --strict makes every warning an error.

      Examples:
        receipt validate receipt --data Templates/Examples/small.json --strict
        receipt validate tpl/shop.xml
      """
  )

  @Argument(
    help: "Template: a name in the templates directory, or a file path (tpl/shop.xml).",
    completion: .custom(TemplateChoice.templateNames))
  var name: String = "receipt"

  @Option(help: "Order JSON to bind while checking.", completion: .file(extensions: ["json"]))
  var data: String?

  @Option(
    help: "Templates directory (default: $RECEIPT_TEMPLATES, ./Templates, or the one shipped with receipt).",
    completion: .directory)
  var templates: String?

  @Flag(help: "Every warning is an error (missing data, a null in a sum, a missing strings file).")
  var strict = false

  func run() throws {
    try reportingErrors {
      var choice = try TemplateChoice.parse([])
      choice.template = name
      choice.templates = templates
      let warnings = try ReceiptEngine().validate(
        template: try choice.name(), templates: try choice.directory(), data: try data.map(readInput), strict: strict,
        dataName: data == "-" ? "stdin" : data ?? "order")
      for warning in warnings { try Console.out("warning: \(warning)") }
      try Console.out("\(name): valid")
    }
  }
}
