import Crypto
import Foundation
import ReceiptKit
import ReceiptModel

/// A configured printer as an IPP Everywhere / AirPrint roll printer: what its head and roll
/// are, in IPP's units (hundredths of millimetres, dots per inch), and the attributes clients
/// read to lay out for it (PWG 5100.14, 5100.13, 5100.7; Apple's AirPrint keys in `urf-supported`).
struct IPPPrinter: Sendable {
  let config: PrinterConfig
  /// The head's resolution.
  let dpi: Int
  /// The roll: its width and the printable width of the head, in hundredths of a millimetre.
  let paperWidth: Int
  let printableWidth: Int
  /// `urn:uuid:…`, stable for this printer on this machine.
  let uuid: String
  /// `printer-serial-number`: 16 hex digits, stable for this printer on this machine (the same
  /// digest as the UUID, its next bytes).
  let serial: String
  let makeAndModel: String

  /// The shortest and longest page a client may ask for (hundredths of a millimetre): a roll
  /// cuts at any length from a centimetre to the 4 m a receipt may have.
  static let minimumLength = 1000
  static let maximumLength = 400_000
  /// The length of the fixed size clients are offered first (CUPS' PPD needs one).
  static let defaultLength = 20000

  init(_ config: PrinterConfig, machine: String) {
    self.config = config
    let paper = config.roll
    dpi = config.model?.dpi ?? 203
    paperWidth = (paper.width.millimetres * 100).clampedInt()
    if let dots = config.model?.paper[paper.name] {
      printableWidth = dots * 2540 / dpi
    } else {
      printableWidth = (paper.printableWidth.millimetres * 100).clampedInt(.down)
    }
    let digest = Array(SHA256.hash(data: Data("receipt:\(machine):\(config.name)".utf8)))
    var bytes = Array(digest.prefix(16))
    bytes[6] = (bytes[6] & 0x0F) | 0x50  // a name-based UUID (version 5 layout)
    bytes[8] = (bytes[8] & 0x3F) | 0x80
    let hex = bytes.map { String(format: "%02x", $0) }.joined()
    let parts = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { range in
      String(
        hex[
          hex.index(hex.startIndex, offsetBy: range.lowerBound)..<hex.index(hex.startIndex, offsetBy: range.upperBound)]
      )
    }
    uuid = "urn:uuid:" + parts.joined(separator: "-")
    serial = digest[16..<24].map { String(format: "%02X", $0) }.joined()
    makeAndModel = (config.model?.title ?? "Receipt printer") + " (receipt)"
  }

  var name: String { config.name }
  /// The unprintable strip at each side of the roll.
  var sideMargin: Int { max(0, (paperWidth - printableWidth) / 2) }
  /// Whole millimetres where they are whole (80, not 80.00), for media names.
  var widthName: String {
    paperWidth % 100 == 0 ? "\(paperWidth / 100)" : String(format: "%.2f", Double(paperWidth) / 100)
  }
  /// The media name of the roll at the default length, and its range's ends (PWG 5101.1).
  /// PWG 5101.1's self-describing name of the roll cut at `length` (hundredths of a millimetre),
  /// as CUPS names a custom size: `custom_80x143.7mm_80x143.7mm`.
  func customMedia(length: Int) -> String {
    let millimetres =
      length % 100 == 0
      ? "\(length / 100)"
      : String(format: "%.2f", Double(length) / 100)
        .replacingOccurrences(of: "0+$", with: "", options: .regularExpression)
    let size = "\(widthName)x\(millimetres)mm"
    return "custom_\(size)_\(size)"
  }

  var defaultMedia: String { "om_roll-\(widthName)mm_\(widthName)x\(Self.defaultLength / 100)mm" }
  /// Sheet sizes a client may ask for (IPP Everywhere's document tests send both with
  /// `ipp-attribute-fidelity`): such a page prints scaled to the roll's width, at its own
  /// proportions, as any wider page does.
  static let sheetSizes = ["iso_a4_210x297mm", "na_letter_8.5x11in"]

  var mediaRange: [String] {
    ["custom_min_\(widthName)x\(Self.minimumLength / 100)mm", "custom_max_\(widthName)x\(Self.maximumLength / 100)mm"]
  }

  /// A `media-size` collection: the roll's width with a fixed length, or the range of lengths.
  func mediaSize(length: Int?) -> [IPPAttribute] {
    [
      IPPAttribute("x-dimension", .integer(Int32(paperWidth))),
      IPPAttribute(
        "y-dimension",
        length.map { .integer(Int32($0)) } ?? .range(Int32(Self.minimumLength), Int32(Self.maximumLength))),
    ]
  }

  /// A `media-col` entry: size, margins, the roll as source and type.
  func mediaCol(length: Int?) -> IPPValue {
    .collection([
      IPPAttribute("media-size", .collection(mediaSize(length: length))),
      IPPAttribute("media-top-margin", .integer(0)), IPPAttribute("media-bottom-margin", .integer(0)),
      IPPAttribute("media-left-margin", .integer(Int32(sideMargin))),
      IPPAttribute("media-right-margin", .integer(Int32(sideMargin))),
      IPPAttribute("media-source", .keyword("main-roll")), IPPAttribute("media-type", .keyword("continuous")),
    ])
  }

  /// The formats a client may send.
  static let formats = [
    "application/octet-stream", "application/pdf", "image/pwg-raster", "image/urf", "image/jpeg", "image/png",
    DocumentFormat.order.rawValue,
  ]

  /// The job attributes a client may send (beyond the operation's).
  static let jobCreationAttributes = [
    "copies", "finishings", "media", "media-col", "orientation-requested", "output-bin", "page-ranges",
    "print-color-mode", "print-content-optimize", "print-quality", "print-rendering-intent", "print-scaling",
    "printer-resolution", "sides", "template", "locale",
  ]

  /// The printer's attributes that do not change while the daemon runs.
  func fixedAttributes(uris: [String], moreInfo: String, started: Date) -> [IPPAttribute] {
    let keywords = { (name: String, values: [String]) in IPPAttribute(name, values.map(IPPValue.keyword)) }
    let resolution = IPPValue.resolution(x: Int32(dpi), y: Int32(dpi), perInch: true)
    let model = config.model
    let deviceID =
      "MFG:\(model?.title.split(separator: " ").first.map(String.init) ?? "Generic");"
      + "MDL:\(model?.title ?? "Receipt printer");CMD:PDF,PWGRaster,URF,JPEG,PNG;CLS:PRINTER;SN:\(serial);"
    return [
      IPPAttribute("printer-uri-supported", uris.map(IPPValue.uri)),
      keywords("uri-security-supported", uris.map { $0.hasPrefix("ipps:") ? "tls" : "none" }),
      keywords("uri-authentication-supported", uris.map { _ in "none" }),
      IPPAttribute("printer-name", .name(name)),
      // PWG 5100.14: the DNS-SD instance name it is advertised as (also when advertising is off:
      // the name it would have).
      IPPAttribute("printer-dns-sd-name", .name(dnsSDName)),
      IPPAttribute("printer-info", .text("\(name) — \(makeAndModel)")),
      IPPAttribute("printer-location", .text("")),
      IPPAttribute("printer-make-and-model", .text(makeAndModel)),
      IPPAttribute("printer-device-id", .text(deviceID)),
      IPPAttribute("printer-uuid", .uri(uuid)),
      IPPAttribute("printer-serial-number", .text(serial)),
      // PWG 5100.13: the firmware as name, text and a binary version (one byte a part).
      IPPAttribute("printer-firmware-name", .name("receipt")),
      IPPAttribute("printer-firmware-string-version", .text(ReceiptEngine.version)),
      IPPAttribute(
        "printer-firmware-version",
        .octetString(ReceiptEngine.version.split(separator: ".").map { UInt8(clamping: Int($0) ?? 0) })),
      IPPAttribute("printer-more-info", .uri(moreInfo)),
      IPPAttribute("printer-supply-info-uri", .uri(moreInfo)),
      IPPAttribute("printer-icons", IPPIcon.uris(page: moreInfo).map(IPPValue.uri)),
      IPPAttribute("printer-geo-location", .outOfBand(.unknown)),
      IPPAttribute("printer-organization", .text("")),
      IPPAttribute("printer-organizational-unit", .text("")),
      keywords("printer-kind", ["receipt", "roll"]),
      IPPAttribute("printer-config-change-time", .integer(0)),
      IPPAttribute("printer-config-change-date-time", .dateTime(started)),
      IPPAttribute("charset-configured", .charset("utf-8")),
      IPPAttribute("charset-supported", .charset("utf-8")),
      IPPAttribute("natural-language-configured", .naturalLanguage("en")),
      IPPAttribute("generated-natural-language-supported", .naturalLanguage("en")),
      keywords("ipp-versions-supported", ["1.1", "2.0"]),
      keywords("ipp-features-supported", ["ipp-everywhere"]),
      IPPAttribute("operations-supported", IPPOperation.allCases.map { .enumeration(Int32($0.rawValue)) }),
      IPPAttribute("document-format-supported", Self.formats.map(IPPValue.mimeMediaType)),
      IPPAttribute("document-format-default", .mimeMediaType("application/octet-stream")),
      // PWG 5100.13: the longest document password; 0, none (a PDF with a password fails).
      IPPAttribute("document-password-supported", .integer(0)),
      keywords("printer-get-attributes-supported", ["document-format"]),
      keywords("compression-supported", ["none"]),
      keywords("pdl-override-supported", ["attempted"]),
      IPPAttribute("multiple-document-jobs-supported", .boolean(false)),
      IPPAttribute("multiple-operation-time-out", .integer(Int32(IPPFront.heldTimeout))),
      keywords("multiple-operation-time-out-action", ["abort-job"]),
      IPPAttribute("job-ids-supported", .boolean(true)),
      IPPAttribute("preferred-attributes-supported", .boolean(false)),
      keywords("which-jobs-supported", ["completed", "not-completed", "all"]),
      keywords("job-creation-attributes-supported", Self.jobCreationAttributes),
      keywords("overrides-supported", ["document-number", "pages"]),
      IPPAttribute("page-ranges-supported", .boolean(true)),
      IPPAttribute("copies-default", .integer(1)),
      IPPAttribute("copies-supported", .range(1, 99)),
      IPPAttribute("finishings-default", .enumeration(3)),
      IPPAttribute("finishings-supported", .enumeration(3)),
      IPPAttribute("orientation-requested-default", .enumeration(3)),
      IPPAttribute("orientation-requested-supported", .enumeration(3)),
      keywords("output-bin-default", ["face-up"]),
      keywords("output-bin-supported", ["face-up"]),
      keywords("sides-default", ["one-sided"]),
      keywords("sides-supported", ["one-sided"]),
      IPPAttribute("color-supported", .boolean(false)),
      keywords("print-color-mode-default", ["monochrome"]),
      keywords("print-color-mode-supported", ["monochrome", "auto"]),
      keywords("print-content-optimize-default", ["auto"]),
      keywords("print-content-optimize-supported", DocumentContent.allCases.map(\.rawValue)),
      keywords("print-rendering-intent-default", ["auto"]),
      keywords("print-rendering-intent-supported", ["auto"]),
      keywords("print-scaling-default", ["auto"]),
      keywords("print-scaling-supported", DocumentScaling.allCases.map(\.rawValue)),
      IPPAttribute("print-quality-default", .enumeration(4)),
      IPPAttribute("print-quality-supported", [3, 4, 5].map { .enumeration($0) }),
      IPPAttribute("printer-resolution-default", resolution),
      IPPAttribute("printer-resolution-supported", resolution),
      IPPAttribute("pwg-raster-document-resolution-supported", resolution),
      keywords("pwg-raster-document-type-supported", ["black_1", "sgray_8", "srgb_8"]),
      keywords("pwg-raster-document-sheet-back", ["normal"]),
      keywords("urf-supported", ["V1.4", "CP99", "W8", "SRGB24", "IS1", "MT1", "OB9", "PQ3-4-5", "RS\(dpi)"]),
      keywords("identify-actions-default", ["display"]),
      keywords("identify-actions-supported", ["display"]),
      IPPAttribute("pages-per-minute", .integer(Int32(max(1, (model?.speed ?? 100) * 60 / 300)))),
      keywords("media-default", [defaultMedia]),
      keywords("media-supported", [defaultMedia] + mediaRange + Self.sheetSizes),
      keywords("media-ready", [defaultMedia]),
      IPPAttribute("media-col-default", mediaCol(length: Self.defaultLength)),
      IPPAttribute("media-col-ready", [mediaCol(length: nil)]),
      keywords(
        "media-col-supported",
        [
          "media-size", "media-top-margin", "media-bottom-margin", "media-left-margin", "media-right-margin",
          "media-source", "media-type",
        ]),
      IPPAttribute(
        "media-size-supported",
        [.collection(mediaSize(length: Self.defaultLength)), .collection(mediaSize(length: nil))]
      ),
      IPPAttribute("media-top-margin-supported", .integer(0)),
      IPPAttribute("media-bottom-margin-supported", .integer(0)),
      IPPAttribute("media-left-margin-supported", .integer(Int32(sideMargin))),
      IPPAttribute("media-right-margin-supported", .integer(Int32(sideMargin))),
      keywords("media-source-supported", ["main-roll"]),
      keywords("media-type-supported", ["continuous"]),
      IPPAttribute("jpeg-x-dimension-supported", .range(1, 8192)),
      IPPAttribute("jpeg-y-dimension-supported", .range(1, 8192)),
      keywords("template-supported", []),
    ].filter { !$0.values.isEmpty }
  }

  /// `media-col-database`: the roll at the default length and its range (returned only when asked by name).
  var mediaColDatabase: IPPAttribute {
    IPPAttribute("media-col-database", [mediaCol(length: Self.defaultLength), mediaCol(length: nil)])
  }
}

extension IPPPrinter {
  /// The DNS-SD service instance name: the printer's name and this machine's short host name
  /// (`till @ pos-server`), what ``IPPFront/advertisements(port:)`` registers.
  var dnsSDName: String {
    let host = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "receipt"
    return "\(name) @ \(host)"
  }
}
