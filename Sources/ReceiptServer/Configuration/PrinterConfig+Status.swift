import ReceiptKit

extension PrinterConfig {
  /// Whether the printer may be sent ESC/POS status requests (`DLE EOT`): CUPS and directory
  /// printers always (they are asked their own way), raw printers unless their model reports no
  /// real-time status — a Star printer would take the request for data.
  var answersStatusRequests: Bool {
    guard target.delivery == .raw else { return true }
    return model.map { $0.status.contains("realtime") } ?? true
  }
}
