// What users of ReceiptKit (the CLI, the daemon, other programs) see besides the facade: the
// document model, templates, and printing's public types (printers, states, addresses). The
// layout and render modules stay behind the facade.
@_exported import ReceiptMarkup
@_exported import ReceiptModel
@_exported import ReceiptPrint
