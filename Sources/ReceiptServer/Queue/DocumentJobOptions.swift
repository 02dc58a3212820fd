import Foundation
import ReceiptKit

/// How a document job (IPP) prints: what the client asked for (IPP `print-scaling`,
/// `print-content-optimize`, `page-ranges`). Kept with the job in one text column as JSON
/// (`Job.printOptions`): its `Codable` form is that one string.
struct DocumentJobOptions: Codable, Sendable, Equatable {
  var scaling: DocumentScaling?
  var content: DocumentContent?
  /// 1-based page ranges, each `[first, last]`.
  var pageRanges: [[Int]]?
  /// Each page keeps only its printed rows and the margins (roll trimming): the client did not choose
  /// the length (the default roll size) and the printer trims (``PrinterConfig/trimRoll``).
  var trim: Bool?
  /// The IPP `media` of a length the client chose (`custom_80x143.7mm_80x143.7mm`); nil: the
  /// printer's default size.
  var media: String?

  init(
    scaling: DocumentScaling? = nil, content: DocumentContent? = nil, pageRanges: [[Int]]? = nil, trim: Bool? = nil,
    media: String? = nil
  ) {
    self.scaling = scaling
    self.content = content
    self.pageRanges = pageRanges
    self.trim = trim
    self.media = media
  }

  /// The fields as the column's JSON has them.
  private struct Fields: Codable {
    var scaling: String?
    var content: String?
    var pageRanges: [[Int]]?
    var trim: Bool?
    var media: String?
  }

  /// From the column's JSON text; options it does not know read as their defaults.
  init(from decoder: any Decoder) throws {
    let text = try decoder.singleValueContainer().decode(String.self)
    let fields = (try? JSONDecoder().decode(Fields.self, from: Data(text.utf8))) ?? Fields()
    self.init(
      scaling: fields.scaling.flatMap(DocumentScaling.init(rawValue:)),
      content: fields.content.flatMap(DocumentContent.init(rawValue:)), pageRanges: fields.pageRanges,
      trim: fields.trim, media: fields.media)
  }

  /// As the column's JSON text.
  func encode(to encoder: any Encoder) throws {
    let fields = Fields(
      scaling: scaling?.rawValue, content: content?.rawValue, pageRanges: pageRanges, trim: trim,
      media: media)
    var container = encoder.singleValueContainer()
    try container.encode(String(decoding: try JSONEncoder().encode(fields), as: UTF8.self))
  }

  /// Nil when every option is the default (nothing to keep).
  var stored: DocumentJobOptions? { self == Self() ? nil : self }

  /// The print options for `paper`, with a reprint's mark.
  func printOptions(paper: Paper, mark: String?) -> DocumentPrintOptions {
    DocumentPrintOptions(
      paper: paper, scaling: scaling ?? .auto, content: content ?? .auto,
      pageRanges: pageRanges?.compactMap { $0.count == 2 && $0[0] <= $0[1] ? $0[0]...$0[1] : nil }, mark: mark,
      trimRoll: trim ?? false)
  }
}
