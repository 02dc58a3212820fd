/// The facts of a printer the simulator stands in for, taken from the vendor's references (not
/// from receipt's model files): the head and the motion units a printer starts with after power-on
/// or `ESC @`.
public struct SimulatedPrinterModel: Sendable {
  /// Dots across the head.
  public var headDots: Int
  /// Head resolution (dot rows per inch along the paper).
  public var dpi: Int
  /// The vertical motion unit after `ESC @` (`GS P` y, units per inch); nil where no vendor
  /// reference gives it — the simulator then refuses a feed before `GS P` has set the unit, as
  /// it cannot know how far the real printer would move.
  public var defaultVerticalUnits: Int?
  /// A Star printer: it speaks Star's commands (raster, `ESC ACK SOH`), not ESC/POS.
  public var star: Bool
  /// Where the facts come from.
  public var source: String

  /// Creates a model.
  public init(headDots: Int, dpi: Int, defaultVerticalUnits: Int?, star: Bool = false, source: String) {
    self.headDots = headDots
    self.dpi = dpi
    self.defaultVerticalUnits = defaultVerticalUnits
    self.star = star
    self.source = source
  }

  /// Star TSP100 series (TSP143IV): 203 dpi, 576 dots on 80 mm, Star Graphic mode — raster
  /// only, status by `ESC ACK SOH` (STAR Graphic Mode Command Specifications Rev. 2.32, 3-1-3
  /// "Status"; the automatic status's layout from the STAR Line Mode Command Specifications
  /// Rev. 0.00, Appendix 5-2-3). It feeds in dots (`ESC * r Y n NUL`), so no motion unit.
  public static let starTSP100 = SimulatedPrinterModel(
    headDots: 576, dpi: 203, defaultVerticalUnits: nil, star: true,
    source:
      "STAR Graphic Mode Command Specifications Rev. 2.32 3-1-3; STAR Line Mode Command Specifications Rev. 0.00 pp. 3-70, 5-7…5-11"
  )

  /// Epson TM-T88 line (TM-T88V, TM-T88VI): 180 dpi, 512 dots on 80 mm. `GS P` [Default]
  /// x = 180, y = 360 — the vertical unit is 1/360 inch, half a dot row — and `ESC J`, `ESC 3`
  /// and `GS V` count in it (TM-T88III Specification (STANDARD) Rev. B, sheet 127, "GS P x y";
  /// Epson TM-T88III command reference Ver. 10.01 p. 470, [Default] TM-T88III: x = 180, y = 360).
  public static let epsonTMT88 = SimulatedPrinterModel(
    headDots: 512, dpi: 180, defaultVerticalUnits: 360,
    source: "Epson TM-T88III Specification (STANDARD) Rev. B sheet 127; ESC/POS reference Ver. 10.01 p. 470")

  /// Epson TM-T20III / TM-m30III: 203 dpi, 576 dots on 80 mm. Epson's current ESC/POS reference
  /// gives `GS P`'s default as "different depending on the printers" without the value for
  /// these models: unknown here.
  public static let epson203 = SimulatedPrinterModel(
    headDots: 576, dpi: 203, defaultVerticalUnits: nil,
    source: "Epson ESC/POS command reference, GS P: [Default] x, y: different depending on the printers")

  /// A generic 203-dpi ESC/POS printer of `headDots` dots (576 on 80 mm, 384 on 58 mm): its
  /// default vertical unit varies by maker (Wincor Nixdorf TH230: y = 203; clones documented as
  /// y = 360), so it is unknown here.
  public static func generic203(headDots: Int = 576) -> SimulatedPrinterModel {
    SimulatedPrinterModel(
      headDots: headDots, dpi: 203, defaultVerticalUnits: nil,
      source: "no common default: Wincor Nixdorf TH230 programmer's guide p. 154 (y = 203) vs clone manuals (y = 360)")
  }

  /// The same head with another default vertical unit (a printer set up differently).
  public func withDefaultVerticalUnits(_ units: Int?) -> SimulatedPrinterModel {
    var model = self
    model.defaultVerticalUnits = units
    return model
  }
}
