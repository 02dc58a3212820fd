public import ReceiptModel

/// One page of a document as gray pixels and the size it has on paper.
public struct DocumentPage: Sendable, Equatable {
  public var image: GrayImage
  /// The page's width and length in points (1/72 inch).
  public var width: Double
  public var length: Double
  /// The page came as black and white dots (PWG `black_1`): printed dot for dot, not dithered.
  public var isBilevel: Bool

  /// Creates a page.
  public init(image: GrayImage, width: Double, length: Double, isBilevel: Bool = false) {
    self.image = image
    self.width = width
    self.length = length
    self.isBilevel = isBilevel
  }
}

/// Lays document pages (PDF, raster, images) out on the roll: each page one continuous page of
/// its own length, as wide as the paper or at its own size (``DocumentScaling``), centred, its
/// dots then cut to the printable width by the encoder like any receipt. A page's length is its
/// cut length: what a client chose as the roll's length (the seed's `cutLength`) is printed.
public enum DocumentLayout {
  /// The pages as a laid-out receipt for `setup` (paper and resolution; margins are the
  /// document's own). `header`, laid out for the same setup, goes above the first page (a
  /// reprint's mark).
  public static func layOut(
    _ pages: [DocumentPage], setup: PageSetup, scaling: DocumentScaling = .auto, content: DocumentContent = .auto,
    title: String, header: LaidOutPage? = nil
  ) throws -> LaidOutReceipt {
    var setup = setup
    setup.margins = Insets(all: .pt(0))
    let paper = setup.paper.width.points
    var laidOut: [LaidOutPage] = []
    for (index, page) in pages.enumerated() {
      let scale = Self.scale(ofPageWide: page.width, paper: paper, scaling: scaling)
      let width = page.width * scale
      let length = page.length * scale
      let top = index == 0 ? header?.cutLength ?? 0 : 0
      guard top + length <= PageSetup.maximumLength.points else {
        throw LayoutError.image(
          "page \(index + 1) is \(Length.pt(length).millimetres.clampedInt(.down)) mm long on this paper; "
            + "a page may be at most \(PageSetup.maximumLength.millimetres.clampedInt(.down)) mm")
      }
      let rect = Rect(x: (paper - width) / 2, y: top, width: width, height: length)
      var items: [LaidOutItem] = index == 0 ? header?.items ?? [] : []
      items.append(.image(PlacedImage(rect: rect, image: page.image, dither: dither(page, content))))
      laidOut.append(
        LaidOutPage(
          width: paper, contentHeight: top + length, cutLength: top + length, items: items,
          commands: index == 0 ? header?.commands ?? [] : [], cut: index < pages.count - 1 ? .partial : nil))
    }
    return LaidOutReceipt(pageSetup: setup, pages: laidOut, title: title)
  }

  /// The factor a page `width` points wide is drawn at on `paper` points: to the paper's width
  /// when it is scaled (`fit`, `fill`, or `auto` for a page wider than the paper), else 1.
  public static func scale(ofPageWide width: Double, paper: Double, scaling: DocumentScaling) -> Double {
    let fits: Bool
    switch scaling {
    case .fit, .fill: fits = true
    case .auto: fits = width > paper + Length.mm(1).points
    case .none: fits = false
    }
    return fits ? paper / width : 1
  }

  /// The page with at most as many pixels across as it will be printed with at `dpi` (see
  /// ``GrayImage/reduced(toWidth:height:)``): its size on paper is unchanged.
  public static func reducedToPrint(_ page: DocumentPage, paper: Double, scaling: DocumentScaling, dpi: Int)
    -> DocumentPage
  {
    let dots = page.width * scale(ofPageWide: page.width, paper: paper, scaling: scaling) * Double(dpi) / 72
    guard let width = dots.roundedInt(in: 1...Int.max), width < page.image.width else { return page }
    let height = max(
      1, (Double(page.image.height) * Double(width) / Double(page.image.width)).clampedInt(in: 1...page.image.height))
    var reduced = page
    reduced.image = page.image.reduced(toWidth: width, height: height)
    return reduced
  }

  /// How a page's gray becomes dots: dot for dot when it came as dots, a threshold for text,
  /// error diffusion for pictures; `auto` decides by the page's pixels.
  static func dither(_ page: DocumentPage, _ content: DocumentContent) -> DitherMethod {
    if page.isBilevel { return .threshold }
    switch content {
    case .text: return .threshold
    case .photo, .graphic: return .floydSteinberg
    case .auto, .textAndGraphic: return isMostlyBilevel(page.image) ? .threshold : .floydSteinberg
    }
  }

  /// Whether nearly every pixel is close to black or white (text, barcodes, line art, and their
  /// anti-aliased edges), as opposed to a photograph's or a logo's grays.
  static func isMostlyBilevel(_ image: GrayImage) -> Bool {
    var middle = 0
    var inked = 0
    let step = max(1, image.pixels.count / 200_000)  // a sample is enough
    var i = 0
    while i < image.pixels.count {
      let v = image.pixels[i]
      if v < 250 { inked += 1 }
      if v > 40 && v < 215 { middle += 1 }
      i += step
    }
    // Anti-aliased text has about one edge pixel in gray per three inked ones.
    return inked == 0 || Double(middle) / Double(inked) < 0.45
  }
}
