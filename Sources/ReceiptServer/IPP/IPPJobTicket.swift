import Foundation
import ReceiptKit
import ReceiptModel

/// What an IPP client asked of a job (its job template and operation attributes), checked against
/// what the printer supports. Values it cannot honour are returned in the unsupported group; with
/// `ipp-attribute-fidelity` true they refuse the job (RFC 8011 4.2.1.2), else they are ignored.
struct IPPJobTicket {
  var copies = 1
  var jobName: String?
  /// `document-format` as the client gave it (`application/octet-stream` included: sniffed later).
  var format: String?
  var options = DocumentJobOptions()
  /// An order's template (`template`, for `application/vnd.receipt+json`) and its locale.
  var template: String?
  var locale: String?
  /// Page length the client chose for the roll (`media-col` y-dimension or a media name), in
  /// hundredths of a millimetre: the document's own page length wins; it is checked, and a job
  /// without a chosen length (nil, or the default roll size) is trimmed (``PrinterConfig/trimRoll``).
  var length: Int?
  var unsupported: [IPPAttribute] = []

  init(_ request: IPPRequest, printer: IPPPrinter, templates: [String]) throws {
    if let name = request.operationAttribute("job-name")?.string { jobName = IPPRequest.printable(name) }
    if let format = request.operationAttribute("document-format")?.string?.lowercased() {
      guard IPPPrinter.formats.contains(format) else {
        throw IPPFailure(
          .documentFormatNotSupported, "document-format \(format) is not supported",
          unsupported: [IPPAttribute("document-format", .mimeMediaType(format))])
      }
      self.format = format
    }
    if let compression = request.operationAttribute("compression")?.string, compression != "none" {
      throw IPPFailure(
        .compressionNotSupported, "compression \(compression) is not supported; send documents uncompressed",
        unsupported: [IPPAttribute("compression", .keyword(compression))])
    }
    for attribute in request.jobAttributes { check(attribute, printer: printer, templates: templates) }
    let fidelity = request.operationAttribute("ipp-attribute-fidelity")?.boolean ?? false
    if fidelity, !unsupported.isEmpty {
      throw IPPFailure(
        .attributesOrValuesNotSupported,
        "the printer cannot honour \(unsupported.map(\.name).joined(separator: ", "))", unsupported: unsupported)
    }
  }

  /// Takes one job template attribute, or notes it as unsupported.
  private mutating func check(_ attribute: IPPAttribute, printer: IPPPrinter, templates: [String]) {
    let value = attribute.values.first
    let one = attribute.values.count == 1
    var ok = one
    switch attribute.name {
    case "copies":
      if case .integer(let n)? = value, one, (1...99).contains(n) { copies = Int(n) } else { ok = false }
    case "media":
      ok = one && value?.string.map { media in mediaLength(media, printer: printer) != nil } == true
    case "media-col":
      ok = one && attribute.collection.map { mediaCol($0, printer: printer) } == true
    case "print-scaling":
      options.scaling = one ? value?.string.flatMap(DocumentScaling.init(rawValue:)) : nil
      ok = options.scaling != nil
    case "print-content-optimize":
      options.content = one ? value?.string.flatMap(DocumentContent.init(rawValue:)) : nil
      ok = options.content != nil
    case "page-ranges":
      var ranges: [[Int]] = []
      for case .range(let a, let b) in attribute.values where a >= 1 && a <= b { ranges.append([Int(a), Int(b)]) }
      ok = ranges.count == attribute.values.count && !ranges.isEmpty
      if ok { options.pageRanges = ranges }
    case "sides": ok = one && value?.string == "one-sided"
    case "orientation-requested": ok = one && [3, 4, 5, 6, 7].contains(value?.integer ?? 0)
    case "print-color-mode":
      ok = one && ["monochrome", "auto", "bi-level", "auto-monochrome"].contains(value?.string ?? "")
    case "print-quality": ok = one && [3, 4, 5].contains(value?.integer ?? 0)
    case "print-rendering-intent": ok = one && value?.string == "auto"
    case "output-bin": ok = one && value?.string == "face-up"
    case "finishings": ok = attribute.values.allSatisfy { $0.integer == 3 }
    case "printer-resolution":
      if case .resolution(let x, let y, true)? = value, one {
        ok = Int(x) == printer.dpi && Int(y) == printer.dpi
      } else {
        ok = false
      }
    case "template":
      if let name = value?.string, one, templates.contains(name) { template = name } else { ok = false }
    case "locale":
      if let name = value?.string, one, name.count <= 35 { locale = name } else { ok = false }
    // Accepted and not acted on: a roll printer has one way to print these.
    case "job-priority", "job-hold-until", "multiple-document-handling", "job-sheets", "overrides",
      "number-up", "presentation-direction-number-up", "print-darkness", "print-speed", "job-account-id",
      "job-accounting-user-id", "job-pages-per-set", "media-source", "media-type", "feed-orientation":
      ok = true
    default:
      ok = false
    }
    if !ok { unsupported.append(attribute) }
  }

  /// The length a `media` name asks for, when it is the roll's width (and a length on the roll).
  private mutating func mediaLength(_ media: String, printer: IPPPrinter) -> Int? {
    if media == printer.defaultMedia { return IPPPrinter.defaultLength }
    // A sheet size: the page is scaled to the roll; its length is the document's.
    if IPPPrinter.sheetSizes.contains(media) { return IPPPrinter.defaultLength }
    // `…_WIDTHxLENGTHmm`: the last part of a self-describing name.
    guard media.hasSuffix("mm"), let size = media.split(separator: "_").last?.dropLast(2) else { return nil }
    // Numbers a client wrote (`1e300`, `nan`, `inf`): checked before they become integers.
    let parts = size.split(separator: "x").compactMap { Double($0) }
    guard parts.count == 2, (parts[0] * 100).roundedInt(in: 1...1_000_000) == printer.paperWidth,
      let length = (parts[1] * 100).roundedInt(in: IPPPrinter.minimumLength...IPPPrinter.maximumLength)
    else { return nil }
    self.length = length
    return length
  }

  /// Whether a `media-col` fits the roll: its width, a length in the range, margins it can print.
  private mutating func mediaCol(_ members: [IPPAttribute], printer: IPPPrinter) -> Bool {
    for member in members {
      switch member.name {
      case "media-size":
        guard let size = member.collection,
          case .integer(let x)? = size.first(where: { $0.name == "x-dimension" })?.values.first,
          case .integer(let y)? = size.first(where: { $0.name == "y-dimension" })?.values.first,
          abs(Int(x) - printer.paperWidth) <= 100,
          (IPPPrinter.minimumLength...IPPPrinter.maximumLength).contains(Int(y))
        else { return false }
        length = Int(y)
      case "media-top-margin", "media-bottom-margin", "media-left-margin", "media-right-margin":
        guard let margin = member.integer, margin >= 0 else { return false }
      case "media-source": guard member.string == "main-roll" || member.string == "auto" else { return false }
      case "media-type", "media-key", "media-size-name", "media-color": continue
      default: return false
      }
    }
    return true
  }
}
