import ReceiptKit

/// PWG 5100.9's `printer-alert`: what stops a printer, as the Printer MIB's alert table says it
/// (RFC 3805; codes, groups, severities and training levels by their IANA-PRINTER-MIB names),
/// one `code=…;index=…;severity=…;training=…;group=…;groupindex=…;` value per alert, with
/// `printer-alert-description` beside it. A printer with nothing wrong has one empty value (the
/// PWG self-certification's reading of "no alerts").
struct IPPPrinterAlert: Equatable {
  /// PrtAlertCodeTC: `inputMediaSupplyEmpty` (808), `inputMediaSupplyLow` (807), `coverOpen`
  /// (3), `jam` (8), `other` (1).
  var code: String
  /// PrtAlertSeverityLevelTC: `critical` (3) stops the printer, `warning` (4) does not.
  var severity: String
  /// PrtAlertGroupTC: `input` (8) for the roll, `cover` (6), `mediaPath` (13), `generalPrinter` (5).
  var group: String

  /// The alerts of a printer's state reasons (`media-empty-error`, `cover-open-error`, …):
  /// `media-needed` says the same as `media-empty` and adds none.
  static func alerts(reasons: [PrinterStateReason]) -> [IPPPrinterAlert] {
    var alerts: [IPPPrinterAlert] = []
    for reason in reasons where reason != "none" {
      let alert: IPPPrinterAlert
      switch reason.keyword {
      case "media-empty", "media-needed":
        alert = .init(code: "inputMediaSupplyEmpty", severity: "critical", group: "input")
      case "media-low": alert = .init(code: "inputMediaSupplyLow", severity: "warning", group: "input")
      case "cover-open", "door-open": alert = .init(code: "coverOpen", severity: "critical", group: "cover")
      case "media-jam": alert = .init(code: "jam", severity: "critical", group: "mediaPath")
      default: alert = .init(code: "other", severity: "critical", group: "generalPrinter")
      }
      if !alerts.contains(alert) { alerts.append(alert) }
    }
    return alerts
  }

  /// The `printer-alert` values of `alerts` (indexes from 1, the roll and cover as unit 1 of
  /// their group; `untrained`: anyone at the counter can fix it), or one empty value.
  static func values(_ alerts: [IPPPrinterAlert]) -> [String] {
    guard !alerts.isEmpty else { return [""] }
    return alerts.enumerated().map { index, alert in
      "code=\(alert.code);index=\(index + 1);severity=\(alert.severity);training=untrained;group=\(alert.group);groupindex=1;"
    }
  }
}
