import ArgumentParser
import Foundation
import ReceiptCommandLine
import ReceiptKit

struct Measure: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Print each page's content height and cut length in pt, mm and dots.",
    discussion: "Example: receipt measure note.txt --json"
  )

  @Argument(
    help: "The input: order JSON (bound into a template; - for stdin) or a UTF-8 text file.", completion: .file())
  var input: String

  @OptionGroup var template: TemplateChoice

  @Flag(help: "Print JSON.")
  var json = false

  @OptionGroup var page: PageOptions

  func run() throws {
    try reportingErrors {
      let engine = try ReceiptEngine()
      let document = try page.document(input, engine: engine, template: template)
      let (pages, warnings) = try engine.measure(document)
      for warning in warnings { Console.error("receipt: warning: \(warning)") }
      if json {
        try Console.json(pages)
        return
      }
      for (i, p) in pages.enumerated() {
        try Console.out(
          String(
            format: "page %d: content %.3f pt, cut length %.3f pt = %.2f mm = %d dots at %d dpi", i + 1,
            p.contentHeight, p.cutLength, p.cutLengthMillimetres, p.cutLengthDots, document.pageSetup.resolution.dpi))
      }
    }
  }
}
