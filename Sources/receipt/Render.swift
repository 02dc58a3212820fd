import ArgumentParser
import Foundation
import ReceiptCommandLine
import ReceiptKit

struct Render: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Render a receipt to a file.",
    discussion: """
      Examples:
        receipt render note.txt -o note.pdf
        receipt render note.txt -o note.png         (1-bit, 203 dpi; a PNG a page)
        receipt render note.txt -o note.pwg --gray  (PWG raster sgray_8)
        receipt render note.txt -o - --format escpos > /dev/usb/lp0
        receipt render note.txt -o - > note.pdf     (standard output: PDF)

      Batches (one process, every core; one file per input, named after it):
        receipt render orders/*.json -o out/        (out/NAME.pdf for each)
        receipt render - -o out/ --format escpos < day.jsonl
                                                    (JSON Lines: out/000001.escpos, ...)
      An input that fails is reported and the others go on; the exit code is the
      first failure's.
      """
  )

  @Argument(
    help:
      "The input: order JSON (bound into a template; - for stdin) or a UTF-8 text file. Several, or -o DIR/, render a batch (- is then JSON Lines).",
    completion: .file()
  )
  var inputs: [String]

  @OptionGroup var template: TemplateChoice

  @Option(
    name: .shortAndLong,
    help:
      "The output file (its extension picks the format), - for stdout (PDF), or a directory (ending in /) for a batch.",
    completion: .file()
  )
  var output: String

  @Option(
    help:
      "Output format when the extension does not say: \(OutputFormat.allCases.map(\.rawValue).joined(separator: ", ")).",
    completion: .list(OutputFormat.allCases.map(\.rawValue))
  )
  var format: String?

  @Flag(help: "8-bit gray instead of 1-bit for png, pwg and ras.")
  var gray = false

  @OptionGroup var page: PageOptions

  @Option(help: "Batch: receipts rendered at once (default: the machine's cores).")
  var jobs: Int?

  @Flag(help: "Batch: no progress line and no summary (errors and warnings still go to stderr).")
  var quiet = false

  func validate() throws {
    if inputs.isEmpty { throw ValidationError("give an input: an order's JSON, a text file, or - for stdin") }
    if let jobs, !(1...256).contains(jobs) { throw ValidationError("--jobs must be between 1 and 256") }
    if !isBatch, jobs != nil || quiet { throw ValidationError("--jobs and --quiet are for batches (-o DIR/)") }
  }

  func run() throws {
    if isBatch { return try runBatch() }
    let input = inputs[0]
    try reportingErrors {
      let format = try outputFormat()
      let engine = try ReceiptEngine()
      let document = try page.document(input, engine: engine, template: template)
      let rendered = try engine.render(
        document, format: format, options: RenderOptions(gray: gray, model: try page.printerModel()))
      for warning in rendered.warnings { Console.error("receipt: warning: \(warning)") }
      if output == "-" {
        guard rendered.parts.count == 1 else {
          throw ReceiptError(.output, "\(rendered.parts.count) PNG pages cannot go to stdout; give a file name")
        }
        try OutputFile.writeStandardOutput(rendered.parts[0])
        return
      }
      // Regular files are replaced atomically; a printer device, FIFO or symlink is written in
      // place (a rename would destroy the device node and print nothing).
      let files = OutputFile.names(output, count: rendered.parts.count)
      for (file, data) in zip(files, rendered.parts) { try OutputFile.write(data, to: file) }
      let pages = rendered.pages
      let lengths = pages.map { String(format: "%.1f mm", $0.cutLengthMillimetres) }.joined(separator: ", ")
      let written = files.joined(separator: ", ")
      try Console.out("wrote \(written) (\(format), \(pages.count) page\(pages.count == 1 ? "" : "s"): \(lengths))")
    }
  }

  /// `--format`, else the extension, else PDF for standard output. A format that contradicts
  /// the extension, or `--gray` with ESC/POS, is a usage error (64) before anything is written.
  func outputFormat() throws -> OutputFormat {
    let ext = output == "-" || isBatch ? "" : URL(fileURLWithPath: output).pathExtension
    let named = ext.isEmpty ? nil : OutputFormat(fileExtension: ext)
    let chosen: OutputFormat
    if let format {
      guard let parsed = OutputFormat(rawValue: format.lowercased()) else {
        throw ValidationError(
          "unknown --format '\(format)': use one of \(OutputFormat.allCases.map(\.rawValue).joined(separator: ", "))")
      }
      if let named, named != parsed {
        throw ValidationError("--format \(parsed) contradicts the .\(ext) of '\(output)'; leave one out")
      }
      chosen = parsed
    } else if output == "-" || isBatch {
      chosen = .pdf
    } else if let named {
      chosen = named
    } else {
      throw ValidationError(
        "cannot tell the format of '\(output)': give --format or an extension: .pdf .png .pwg .ras .escpos")
    }
    if gray && !chosen.isRaster || gray && chosen == .escpos {
      throw ValidationError(
        "--gray is for png, pwg and ras; \(chosen) is always \(chosen == .pdf ? "vector" : "1-bit")")
    }
    return chosen
  }
}
