/// How a document's page is fitted to the roll (IPP `print-scaling`).
public enum DocumentScaling: String, Sendable, CaseIterable {
  /// `fit` when the page is wider than the paper, else `none`.
  case auto
  /// Scaled to the paper's width, its length in proportion (the roll is as long as it needs).
  case fit
  /// As `fit`: a roll has no length to fill.
  case fill
  /// At its own size, centred on the paper; what is outside the printable width is cut off.
  case none
}

/// How a page's gray becomes dots (IPP `print-content-optimize`).
public enum DocumentContent: String, Sendable, CaseIterable {
  /// Threshold for pages that are (nearly) black and white, error diffusion for the rest.
  case auto
  /// Threshold: crisp text and barcodes.
  case text
  /// Error diffusion (Floyd–Steinberg): photographs and logos.
  case photo
  /// As `photo`.
  case graphic
  /// As `auto`.
  case textAndGraphic = "text-and-graphic"
}
