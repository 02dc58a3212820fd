import ArgumentParser
import Foundation
import ReceiptCommandLine
import ReceiptKit

@main
struct Receipt: ParsableCommand {
  static func main() { runAsReceipt() }

  static let configuration = CommandConfiguration(
    commandName: "receipt",
    abstract: "Lay out receipts exactly and render them on continuous roll paper.",
    discussion: """
      The page length of every receipt is its content height plus 1/8" margins: \
      never scaled, cropped or split into Letter pages.

      Exit codes: 0 ok, 64 usage, 65 bad input data, 66 input missing, \
      69 printer or CUPS unavailable, 70 layout or render failure, \
      73 cannot write output, 75 print job not completed.
      """,
    version: ReceiptEngine.version,
    subcommands: [
      Print.self, Render.self, Measure.self, Printers.self, Validate.self, Serve.self, Design.self, Versions.self,
      ReadDocument.self,
    ]
  )
}

/// Options shared by the commands that lay out a receipt.
struct PageOptions: ParsableArguments {
  @Option(
    help:
      "Paper: 58mm, 80mm, 112mm or any width such as 76mm. For an order, --paper, --dpi or --margin replaces the template's paper=, dpi= and margin= (without them the template's apply); for text and documents the default is 80mm.",
    completion: .list(["58mm", "80mm", "112mm"])
  )
  var paper: String = "80mm"

  @Option(help: "Printer resolution in dots per inch.", completion: .list(["180", "203", "300"]))
  var dpi: Int = 203

  @Option(
    help: "Font for plain text: families, optional bold/italic, size (e.g. \"DejaVu Sans 10\") or a font file path.")
  var font: String = "DejaVu Sans 10"

  @Option(help: "Margin on every side inside the printable area (e.g. 9pt, 3mm, 0.125in).")
  var margin: String = "9pt"

  @Option(
    help:
      "Printer model (epson-tm-t88v, generic-80mm, generic-58mm, one in $RECEIPT_MODELS, or a model's JSON file): lay out for its resolution and printable dots.",
    completion: .list(PrinterModel.shipped.map(\.name))
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
      var options = TemplateOptions(
        locale: template.locale, strict: template.strict, pageSetup: try explicitPageSetup(),
        printHead: try printerModel()?.printHead)
      options.dataName = input == "-" ? "stdin" : input
      options.modelName = try printerModel()?.name
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
