// What users of ReceiptKit (the CLI, the daemon, other programs) see besides the facade: the
// document model, templates, and printing's public types (printers, states, addresses). The
// layout and render modules stay behind the facade: Print and Kit import them with `package
// import`, so what names a laid-out receipt or a raster image (the `Printer` protocol, the
// encoders, `ReceiptEngine.layout`) is `package` — for this package's modules and tests only.
@_exported import ReceiptMarkup
@_exported import ReceiptModel
@_exported import ReceiptPrint
