public import ArgumentParser
public import Foundation
import ReceiptKit

/// Which template binds order JSON.
package struct TemplateChoice: ParsableArguments {
  package init() {}

  @Option(
    help:
      "Template: a name in the templates directory, or a file path (tpl/shop.xml: its directory is the templates directory)."
  )
  package var template: String = "receipt"

  @Option(help: "Templates directory (default: $RECEIPT_TEMPLATES, ./Templates, or the one shipped with receipt).")
  package var templates: String?

  @Option(
    help: "Locale for strings and number/date formats, e.g. de_DE or ja_JP (default: the order's, then the template's)."
  )
  package var locale: String?

  @Flag(help: "Missing data is an error (default: printed empty, with a warning).")
  package var strict = false

  /// A template given as a path (`tpl/shop.xml`, `./shop`): it has a `/` or ends in `.xml`.
  package var isPath: Bool { template.contains("/") || template.hasSuffix(".xml") }

  /// The template's name in its directory.
  package func name() throws -> String {
    try checkLocale()
    guard isPath else { return template }
    let url = URL(fileURLWithPath: template)
    return url.pathExtension == "xml" ? url.deletingPathExtension().lastPathComponent : url.lastPathComponent
  }

  /// An unknown `--locale` is a usage error, not a silent fallback to unlocalised formats.
  package func checkLocale() throws {
    guard let locale else { return }
    guard TemplateLocale.isKnown(locale) else {
      throw ValidationError("unknown --locale '\(locale)': give a language and region such as de_DE, ja_JP or ar_SA")
    }
  }

  package func directory() throws -> URL {
    if isPath {
      let url = URL(fileURLWithPath: template.hasSuffix(".xml") ? template : template + ".xml")
      guard FileManager.default.fileExists(atPath: url.path) else {
        throw ReceiptError(.input, "no template file \(url.path)")
      }
      return url.deletingLastPathComponent().standardizedFileURL
    }
    if let templates { return URL(fileURLWithPath: templates) }
    if let env = ProcessInfo.processInfo.environment["RECEIPT_TEMPLATES"] { return URL(fileURLWithPath: env) }
    let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
      .deletingLastPathComponent()
    let candidates = [
      URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("Templates"),
      executable.appendingPathComponent("../../Templates"),  // .build/<config>/receipt in a checkout
      executable.appendingPathComponent("../share/receipt/Templates"),  // PREFIX/bin/receipt
    ]
    for url in candidates
    where FileManager.default.fileExists(atPath: url.appendingPathComponent("\(template).xml").path) {
      return url.standardizedFileURL
    }
    throw ValidationError(
      "no templates directory with \(template).xml found; give --templates DIR or set RECEIPT_TEMPLATES")
  }
}
