public import ArgumentParser
public import Foundation
import ReceiptKit

/// Which template binds order JSON.
package struct TemplateChoice: ParsableArguments {
  package init() {}

  @Option(
    help:
      "Template: a name in the templates directory, or a file path (tpl/shop.xml: its directory is the templates directory).",
    completion: .custom(TemplateChoice.templateNames)
  )
  package var template: String = "receipt"

  @Option(
    help: "Templates directory (default: $RECEIPT_TEMPLATES, ./Templates, or the one shipped with receipt).",
    completion: .directory)
  package var templates: String?

  @Option(
    help:
      "Locale for strings and number/date formats, e.g. de_DE or ja_JP (default: the order's, then the template's).",
    completion: .list(["ar_SA", "de_DE", "en_US", "fr_FR", "ja_JP"])
  )
  package var locale: String?

  @Flag(help: "Missing data is an error (default: printed empty, with a warning).")
  package var strict = false

  /// The shell's completion of `--template`: the names in the templates directory the command
  /// line names (`--templates DIR`), else `$RECEIPT_TEMPLATES`, `./Templates` or the installed one.
  @Sendable package static func templateNames(_ words: [String], _ index: Int, _ prefix: String) -> [String] {
    var given: [URL] = []
    if let flag = words.firstIndex(of: "--templates"), flag + 1 < words.count {
      given.append(URL(fileURLWithPath: words[flag + 1]))
    }
    if let env = ProcessInfo.processInfo.environment["RECEIPT_TEMPLATES"] { given.append(URL(fileURLWithPath: env)) }
    for url in given + defaultDirectories() {
      if let names = try? TemplateLibrary(directory: url).templateNames(), !names.isEmpty {
        return names.filter { $0.hasPrefix(prefix) }
      }
    }
    return []
  }

  /// Where templates are looked for when neither `--templates` nor `$RECEIPT_TEMPLATES` says:
  /// `./Templates`, then beside the program in a checkout and in an installation.
  static func defaultDirectories() -> [URL] {
    let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
      .deletingLastPathComponent()
    return [
      URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("Templates"),
      executable.appendingPathComponent("../../Templates"),  // .build/<config>/receipt in a checkout
      executable.appendingPathComponent("../share/receipt/Templates"),  // PREFIX/bin/receipt
    ]
  }

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
    for url in Self.defaultDirectories()
    where FileManager.default.fileExists(atPath: url.appendingPathComponent("\(template).xml").path) {
      return url.standardizedFileURL
    }
    throw ValidationError(
      "no templates directory with \(template).xml found; give --templates DIR or set RECEIPT_TEMPLATES")
  }
}
