import ArgumentParser
import Foundation
import ReceiptKit

@main
struct Receipt: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "receipt",
    abstract: "Lay out receipts exactly and render them on continuous roll paper.",
    discussion: """
      The page length of every receipt is its content height plus 1/8" margins: never scaled,
      cropped or split into Letter pages.

      Exit codes: 0 ok, 64 usage, 65 bad input data, 66 input missing, 69 printer or CUPS
      unavailable, 70 layout or render failure, 73 cannot write output, 75 print job not completed.
      """,
    version: "0.1.0",
    subcommands: [
      Print.self, Render.self, Measure.self, Printers.self, Validate.self, Serve.self, Design.self, Versions.self,
    ]
  )
}

/// Options shared by the commands that lay out a receipt.
struct PageOptions: ParsableArguments {
  @Option(help: "Paper: 58mm, 80mm, 112mm or any width such as 76mm.")
  var paper: String = "80mm"

  @Option(help: "Printer resolution in dots per inch.")
  var dpi: Int = 203

  @Option(
    help: "Font for plain text: families, optional bold/italic, size (e.g. \"DejaVu Sans 10\") or a font file path.")
  var font: String = "DejaVu Sans 10"

  @Option(help: "Margin on every side inside the printable area (e.g. 9pt, 3mm, 0.125in).")
  var margin: String = "9pt"

  @Option(
    help:
      "Printer model (epson-tm-t88v, generic-80mm, generic-58mm, one in $RECEIPT_MODELS, or a model's JSON file): lay out for its resolution and printable dots."
  )
  var model: String?

  /// The printer model, if one was named.
  func printerModel() throws -> PrinterModel? {
    guard let model else { return nil }
    do {
      return try PrinterModel.named(model)
    } catch {
      throw ValidationError("\(error)")
    }
  }

  func pageSetup() throws -> PageSetup {
    guard let paper = Paper(parsing: paper) else {
      throw ValidationError("unknown paper '\(paper)': use 58mm, 80mm, 112mm or a width like 76mm")
    }
    guard (72...1200).contains(dpi) else { throw ValidationError("--dpi must be between 72 and 1200") }
    let resolution = Resolution(dpi: dpi)
    guard let margin = Length(parsing: margin, resolution: resolution), margin.points >= 0, margin.points < 72 else {
      throw ValidationError("bad --margin '\(margin)': use a length such as 9pt, 3mm or 0.125in")
    }
    let setup = PageSetup(paper: paper, resolution: resolution, margins: Insets(all: margin))
    guard let head = try printerModel()?.printHead else { return setup }
    guard let fitted = head.fitting(setup) else {
      throw ValidationError("--model \(model ?? "") takes \(head.papers.joined(separator: " or ")) paper, not \(paper)")
    }
    return fitted
  }

  func fontDescriptor() throws -> FontDescriptor {
    guard let descriptor = FontDescriptor(parsing: font) else {
      throw ValidationError("bad --font '\(font)': use \"Family Size\", e.g. \"DejaVu Sans 10\"")
    }
    return descriptor
  }

  /// Loads the input as a document: order JSON through a template, or plain text.
  func document(_ input: String, engine: ReceiptEngine, template: TemplateChoice) throws -> ReceiptDocument {
    let ext = URL(fileURLWithPath: input).pathExtension.lowercased()
    if ext == "json" || input == "-" {
      let data = try readInput(input)
      let options = TemplateOptions(
        locale: template.locale, strict: template.strict, pageSetup: try explicitPageSetup(),
        printHead: try printerModel()?.printHead)
      let rendered = try engine.templateDocument(
        template: try template.name(), data: data, templates: try template.directory(), options: options)
      for warning in rendered.warnings { Console.error("receipt: warning: \(warning)") }
      return rendered.document
    }
    return try engine.plainTextDocument(contentsOf: input, font: try fontDescriptor(), pageSetup: try pageSetup())
  }

  /// The page setup when the user gave paper, dpi or margin (otherwise the template's).
  func explicitPageSetup() throws -> PageSetup? {
    let flags = CommandLine.arguments.map { String($0.split(separator: "=").first ?? "") }
    return flags.contains(where: ["--paper", "--dpi", "--margin"].contains) ? try pageSetup() : nil
  }
}

/// Reads a file, or standard input for "-", with the order size limit.
func readInput(_ path: String) throws -> Data {
  let data: Data
  if path == "-" {
    data = FileHandle.standardInput.readDataToEndOfFile()
  } else {
    do {
      data = try Data(contentsOf: URL(fileURLWithPath: path))
    } catch {
      throw ReceiptError(.input, "cannot read \(path): no such file or not readable")
    }
  }
  guard data.count <= JSONValue.maxBytes else {
    throw ReceiptError(.data, "\(path) is \(data.count) bytes; order data is limited to \(JSONValue.maxBytes)")
  }
  return data
}

/// Which template binds order JSON.
struct TemplateChoice: ParsableArguments {
  @Option(
    help:
      "Template: a name in the templates directory, or a file path (tpl/shop.xml: its directory is the templates directory)."
  )
  var template: String = "receipt"

  @Option(help: "Templates directory (default: $RECEIPT_TEMPLATES, ./Templates, or the one shipped with receipt).")
  var templates: String?

  @Option(
    help: "Locale for strings and number/date formats, e.g. de_DE or ja_JP (default: the order's, then the template's)."
  )
  var locale: String?

  @Flag(help: "Missing data is an error (default: printed empty, with a warning).")
  var strict = false

  /// A template given as a path (`tpl/shop.xml`, `./shop`): it has a `/` or ends in `.xml`.
  var isPath: Bool { template.contains("/") || template.hasSuffix(".xml") }

  /// The template's name in its directory.
  func name() throws -> String {
    try checkLocale()
    guard isPath else { return template }
    let url = URL(fileURLWithPath: template)
    return url.pathExtension == "xml" ? url.deletingPathExtension().lastPathComponent : url.lastPathComponent
  }

  /// An unknown `--locale` is a usage error, not a silent fallback to unlocalised formats.
  func checkLocale() throws {
    guard let locale else { return }
    guard TemplateLocale.isKnown(locale) else {
      throw ValidationError("unknown --locale '\(locale)': give a language and region such as de_DE, ja_JP or ar_SA")
    }
  }

  func directory() throws -> URL {
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

/// Runs a command body, turning pipeline errors into one line on stderr and an exit code.
func reportingErrors(_ body: () throws -> Void) throws {
  do {
    try body()
  } catch let error as ReceiptError {
    // Warnings found before the error often explain it (a missing value, then a failed check).
    for warning in (error.underlying as? TemplateError)?.warnings ?? [] {
      Console.error("receipt: warning: \(warning)")
    }
    Console.error("receipt: error: \(error.message)")
    throw ExitCode(error.stage.exitCode)
  }
}
