import ArgumentParser
import Foundation
import ReceiptKit

struct Render: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Render a receipt to a file.",
    discussion: "Example: receipt render note.txt -o note.pdf"
  )

  @Argument(help: "The input: a UTF-8 text file.")
  var input: String

  @Option(name: .shortAndLong, help: "The output file (its extension picks the format), or - for stdout.")
  var output: String

  @Option(
    help:
      "Output format when the extension does not say: \(OutputFormat.allCases.map(\.rawValue).joined(separator: ", "))."
  )
  var format: String?

  @OptionGroup var page: PageOptions

  func run() throws {
    try reportingErrors {
      let format = try outputFormat()
      let engine = try ReceiptEngine()
      let document = try page.document(input, engine: engine)
      let rendered = try engine.render(document, format: format)
      if output == "-" {
        FileHandle.standardOutput.write(rendered.data)
        return
      }
      do {
        try rendered.data.write(to: URL(fileURLWithPath: output), options: .atomic)
      } catch {
        throw ReceiptError(.output, "cannot write \(output): \(error.localizedDescription)")
      }
      let pages = rendered.pages
      let lengths = pages.map { String(format: "%.1f mm", $0.cutLengthMillimetres) }.joined(separator: ", ")
      print("wrote \(output) (\(format), \(pages.count) page\(pages.count == 1 ? "" : "s"): \(lengths))")
    }
  }

  private func outputFormat() throws -> OutputFormat {
    if let format {
      guard let parsed = OutputFormat(rawValue: format.lowercased()) else {
        throw ValidationError(
          "unknown --format '\(format)': use one of \(OutputFormat.allCases.map(\.rawValue).joined(separator: ", "))")
      }
      return parsed
    }
    let ext = URL(fileURLWithPath: output).pathExtension
    guard let parsed = OutputFormat(fileExtension: ext) else {
      throw ValidationError("cannot tell the format of '\(output)': give --format or an extension such as .pdf")
    }
    return parsed
  }
}
