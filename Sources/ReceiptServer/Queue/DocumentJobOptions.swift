import Foundation
import ReceiptKit

/// How a document job (IPP) prints, kept with the job as JSON (`Job.printOptions`): what the
/// client asked for (IPP `print-scaling`, `print-content-optimize`, `page-ranges`).
struct DocumentJobOptions: Codable, Sendable, Equatable {
  var scaling: String?
  var content: String?
  /// 1-based page ranges, each `[first, last]`.
  var pageRanges: [[Int]]?

  /// The options of a stored job (defaults when it has none or they do not read).
  init(json: String?) {
    self = json.flatMap { try? JSONDecoder().decode(Self.self, from: Data($0.utf8)) } ?? Self()
  }

  init(scaling: String? = nil, content: String? = nil, pageRanges: [[Int]]? = nil) {
    self.scaling = scaling
    self.content = content
    self.pageRanges = pageRanges
  }

  /// As JSON for the store (nil when every option is the default).
  var json: String? {
    guard self != Self() else { return nil }
    return (try? JSONEncoder().encode(self)).map { String(decoding: $0, as: UTF8.self) }
  }

  /// The print options for `paper`, with a reprint's mark.
  func printOptions(paper: Paper, mark: String?) -> DocumentPrintOptions {
    DocumentPrintOptions(
      paper: paper, scaling: scaling.flatMap(DocumentScaling.init(rawValue:)) ?? .auto,
      content: content.flatMap(DocumentContent.init(rawValue:)) ?? .auto,
      pageRanges: pageRanges?.compactMap { $0.count == 2 && $0[0] <= $0[1] ? $0[0]...$0[1] : nil }, mark: mark)
  }
}
