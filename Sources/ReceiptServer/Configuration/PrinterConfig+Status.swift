import ReceiptKit

extension PrinterConfig {
  /// Whether the printer may be sent status requests: CUPS and directory printers always (they
  /// are asked their own way), raw printers in the protocol their model speaks (ESC/POS
  /// `DLE EOT` without a model, Star's `ESC ACK SOH` for a Star model that answers it), and not
  /// when their model reports no status — such a printer would take the request for data.
  var answersStatusRequests: Bool {
    guard target.delivery == .raw else { return true }
    guard let model else { return true }
    return model.statusProtocol != nil
  }
}
