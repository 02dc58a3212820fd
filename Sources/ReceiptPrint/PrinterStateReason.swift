/// One of a printer's IPP `printer-state-reasons` (RFC 8011 5.4.12, PWG 5100.9): a keyword, as
/// receipt's printers report it without a severity suffix (`media-empty`; the IPP front adds
/// `-error` where the printer is stopped), or as CUPS passes a queue's on (`toner-low-warning`,
/// a vendor's own). The set is open, so this is a keyword type with constants for the reasons
/// receipt's printers report — as `HTTPField.Name` is for header names — not a closed enum.
public struct PrinterStateReason: RawRepresentable, Hashable, Sendable, Codable, ExpressibleByStringLiteral,
  CustomStringConvertible
{
  /// The keyword as IPP writes it.
  public let rawValue: String

  /// A reason from its keyword.
  public init(rawValue: String) { self.rawValue = rawValue }

  /// A reason written as a literal (`"media-empty"`).
  public init(stringLiteral value: String) { self.init(rawValue: value) }

  public var description: String { rawValue }

  /// Out of paper (ESC/POS paper end, Star `410`, Epson `ASB_RECEIPT_END`).
  public static let mediaEmpty: Self = "media-empty"
  /// Out of paper, as RFC 8011 says it too (what IPP clients and PWG's self-certification read).
  public static let mediaNeeded: Self = "media-needed"
  /// The roll is nearly out (the printer prints on).
  public static let mediaLow: Self = "media-low"
  /// Paper jammed.
  public static let mediaJam: Self = "media-jam"
  /// The cover is open.
  public static let coverOpen: Self = "cover-open"
  /// The printer does not answer, or has not polled (a report: nothing is wrong with a job).
  public static let offline: Self = "offline-report"
  /// Anything else that stops the printer (a cutter or mechanical error, a printer's own word).
  public static let other: Self = "other"

  /// The keyword without its severity suffix (`media-empty-error` → `media-empty`).
  public var keyword: String {
    for suffix in ["-error", "-warning", "-report"] where rawValue.hasSuffix(suffix) {
      return String(rawValue.dropLast(suffix.count))
    }
    return rawValue
  }

  /// Whether it says the printer is out of paper (`media-empty` or `media-needed`, any severity).
  public var isOutOfPaper: Bool { keyword == "media-empty" || keyword == "media-needed" }

  /// The reason with a severity (RFC 8011 5.4.12): as given when it has one, else `-error` —
  /// said of a printer that holds its queue for it.
  public var withSeverity: PrinterStateReason {
    keyword == rawValue ? PrinterStateReason(rawValue: rawValue + "-error") : self
  }
}
