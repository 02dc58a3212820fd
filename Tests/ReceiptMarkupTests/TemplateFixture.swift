import Foundation
import ReceiptLayout
import ReceiptModel
import ReceiptRender
import ReceiptTestSupport

@testable import ReceiptMarkup

/// A scratch templates directory with files written by a test, bound with a context of its own
/// (nothing parsed or formatted by another test is kept in it).
struct TemplateFixture {
  let directory: URL
  let library: TemplateLibrary

  init(_ files: [String: String]) throws {
    directory = try Tool.temporaryDirectory()
    for (name, contents) in files {
      let url = directory.appendingPathComponent(name)
      try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      try contents.write(to: url, atomically: true, encoding: .utf8)
    }
    library = try TemplateLibrary(directory: directory, caches: MarkupCaches())
  }

  /// Binds `data` into `t.xml`.
  func render(_ data: String = "{}", options: TemplateOptions = TemplateOptions()) throws -> RenderedTemplate {
    try library.render(template: "t", data: Data(data.utf8), options: options)
  }

  /// A template of one `<receipt>` with the given body, rendered.
  static func body(
    _ body: String, data: String = "{}", extra: [String: String] = [:], root: String = "",
    options: TemplateOptions = TemplateOptions()
  )
    throws -> RenderedTemplate
  {
    var files = extra
    files["t.xml"] = "<receipt \(root)>\(body)</receipt>"
    return try TemplateFixture(files).render(data, options: options)
  }

  /// The shipped templates directory of this checkout.
  static var shipped: URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Templates")
      .standardizedFileURL
  }
}

extension RenderedTemplate {
  /// Every text block's string, in document order (inside columns and rows too).
  var texts: [String] {
    func walk(_ blocks: [Block]) -> [String] {
      blocks.flatMap { block -> [String] in
        switch block {
        case .text(let t): return [t.string]
        case .column(let c): return walk(c.children)
        case .row(let r): return walk(r.cells.map(\.block))
        default: return []
        }
      }
    }
    return walk(document.blocks)
  }

  /// The first text block.
  var firstText: AttributedText? {
    func find(_ blocks: [Block]) -> AttributedText? {
      for block in blocks {
        switch block {
        case .text(let t): return t
        case .column(let c): if let t = find(c.children) { return t }
        case .row(let r): if let t = find(r.cells.map(\.block)) { return t }
        default: continue
        }
      }
      return nil
    }
    return find(document.blocks)
  }

  /// The text pdftotext extracts from the rendered PDF, with no-break spaces as spaces.
  func pdfText() throws -> String {
    let receipt = try ReceiptLayoutEngine().layout(document)
    let url = try Tool.temporaryDirectory().appendingPathComponent("t.pdf")
    try PDFRenderer().render(receipt).write(to: url)
    return try Tool.run("pdftotext", ["-layout", url.path, "-"]).stdout
      .replacingOccurrences(of: "\u{A0}", with: " ").replacingOccurrences(of: "\u{202F}", with: " ")
  }
}

/// "1.234,56 €" with ordinary spaces (formatters use no-break spaces).
func plain(_ s: String) -> String {
  s.replacingOccurrences(of: "\u{A0}", with: " ").replacingOccurrences(of: "\u{202F}", with: " ")
    .replacingOccurrences(of: "\u{2068}", with: "").replacingOccurrences(of: "\u{2069}", with: "")
}
