import ArgumentParser
import Foundation
import ReceiptKit

/// `read-document`: the other side of ``DocumentPages/helper`` — a document (PDF, PWG or Apple
/// raster, JPEG, PNG) read into gray pages by a process of its own, which the daemon and
/// `receipt print` start with a time and memory budget, so that a hostile document ends this
/// process and never theirs. Not for people: it is hidden from help.
package struct ReadDocument: ParsableCommand {
  package static let configuration = CommandConfiguration(
    commandName: "read-document", abstract: "Read a document into pages (run by receipt itself).",
    shouldDisplay: false)

  @Option(help: "The document's format (its MIME type).")
  var format: String

  @Option(help: "The printer's resolution in dots per inch.")
  var resolution: Int

  @Option(help: "The paper's width in points.")
  var paperWidth: Double

  @Option(help: "auto, fit, fill or none.")
  var scaling: String = "auto"

  @Option(help: "Pages to read, e.g. 1-3,5-5.")
  var pages: String?

  @Argument(help: "The document's file.")
  var input: String

  @Argument(help: "Where the pages go.")
  var output: String

  package init() {}

  package func run() throws {
    guard let format = DocumentFormat(rawValue: format), format.isPages else {
      throw ValidationError("--format must be a document format, not \(format)")
    }
    guard let scaling = DocumentScaling(rawValue: scaling) else { throw ValidationError("bad --scaling \(scaling)") }
    guard (72...2400).contains(resolution), paperWidth.isFinite, paperWidth > 0, paperWidth < 10_000 else {
      throw ValidationError("--resolution or --paper-width is out of range")
    }
    var ranges: [ClosedRange<Int>]?
    if let pages {
      ranges = try pages.split(separator: ",").map { part in
        let bounds = part.split(separator: "-").compactMap { Int($0) }
        guard bounds.count == 2, bounds[0] >= 1, bounds[0] <= bounds[1] else {
          throw ValidationError("bad --pages \(pages)")
        }
        return bounds[0]...bounds[1]
      }
    }
    let options = DocumentReadOptions(
      resolution: resolution, paperWidth: paperWidth, scaling: scaling, pageRanges: ranges)
    try DocumentPages.serveReader(input: input, output: output, format: format, options: options)
  }
}
