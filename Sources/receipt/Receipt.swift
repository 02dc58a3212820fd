import ArgumentParser
import Foundation
import ReceiptKit

@main
struct Receipt: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "receipt",
    abstract: "Lay out receipts exactly and render them on continuous roll paper.",
    discussion: """
      The page length of every receipt is its content height plus 1/8" margins: never scaled,
      cropped or split into Letter pages.

      Exit codes: 0 ok, 64 usage, 65 bad input data, 66 input missing, 70 layout or render
      failure, 73 cannot write output.
      """,
    version: "0.1.0",
    subcommands: [Render.self, Measure.self, Versions.self]
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

  func pageSetup() throws -> PageSetup {
    guard let paper = Paper(parsing: paper) else {
      throw ValidationError("unknown paper '\(paper)': use 58mm, 80mm, 112mm or a width like 76mm")
    }
    guard (72...1200).contains(dpi) else { throw ValidationError("--dpi must be between 72 and 1200") }
    let resolution = Resolution(dpi: dpi)
    guard let margin = Length(parsing: margin, resolution: resolution), margin.points >= 0, margin.points < 72 else {
      throw ValidationError("bad --margin '\(margin)': use a length such as 9pt, 3mm or 0.125in")
    }
    return PageSetup(paper: paper, resolution: resolution, margins: Insets(all: margin))
  }

  func fontDescriptor() throws -> FontDescriptor {
    guard let descriptor = FontDescriptor(parsing: font) else {
      throw ValidationError("bad --font '\(font)': use \"Family Size\", e.g. \"DejaVu Sans 10\"")
    }
    return descriptor
  }

  /// Loads the input as a document.
  func document(_ input: String, engine: ReceiptEngine) throws -> ReceiptDocument {
    let setup = try pageSetup()
    let ext = URL(fileURLWithPath: input).pathExtension.lowercased()
    guard ext == "txt" || ext == "text" || ext.isEmpty else {
      throw ReceiptError(
        .data, "\(input): only plain text (.txt) input is supported so far; templates for order JSON are not built yet")
    }
    return try engine.plainTextDocument(contentsOf: input, font: try fontDescriptor(), pageSetup: setup)
  }
}

/// Runs a command body, turning pipeline errors into one line on stderr and an exit code.
func reportingErrors(_ body: () throws -> Void) throws {
  do {
    try body()
  } catch let error as ReceiptError {
    FileHandle.standardError.write(Data("receipt: error: \(error.message)\n".utf8))
    switch error.stage {
    case .input: throw ExitCode(66)
    case .data: throw ExitCode(65)
    case .layout, .render: throw ExitCode(70)
    case .output: throw ExitCode(73)
    }
  }
}
