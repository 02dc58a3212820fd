import Foundation
import ReceiptModel
import ReceiptTestSupport
import Testing

@testable import ReceiptKit
@testable import ReceiptLayout
@testable import ReceiptRender

/// Raster pages add the coverage of glyph runs drawn before (``GlyphRunBitmaps``) instead of
/// drawing them glyph by glyph. The reference is cairo drawing every glyph: every example in
/// every shipped locale, on 80 and 58 mm, 1-bit and gray, whole pages and bands, must come out
/// the same dot for dot once every run that can be kept is kept.
@Suite struct KeptRunsTests {
  static let templates = PrinterModelTests.templates
  static let examples = BatchWorkersTests.examples
  static let locales = BatchWorkersTests.locales

  static func laidOut(_ example: String, locale: String, paper: Paper) throws -> LaidOutReceipt {
    let engine = try ReceiptEngine()
    let data = try Data(contentsOf: templates.appendingPathComponent("Examples/\(example).json"))
    let bound = try engine.templateDocument(
      template: "receipt", data: data, templates: templates, options: TemplateOptions(locale: locale, paper: paper))
    return try engine.layout(bound.document)
  }

  /// A renderer drawing every run glyph by glyph through cairo (the reference) and one adding
  /// the runs `kept` holds.
  static func renderers(gray: Bool = false, keptIn kept: GlyphRunBitmaps) -> (
    reference: RasterRenderer, keeping: RasterRenderer
  ) {
    var reference = RasterRenderer(gray: gray)
    reference.runBitmaps = nil
    var keeping = RasterRenderer(gray: gray)
    keeping.runBitmaps = kept
    return (reference, keeping)
  }

  @Test(arguments: [Paper.mm80, .mm58])
  func keptRunsGiveTheDotsCairoDrawsGlyphByGlyph(paper: Paper) throws {
    let kept = GlyphRunBitmaps()
    var drawnFromKept = 0
    // Every example in every locale, and stacked marks above and below their base (glyphs
    // above a run's first dot: negative offsets), emoji and a logo.
    let stress = ("stress", "", try StreamedPrintTests.stress(paper: paper == .mm58 ? "58mm" : nil))
    let receipts =
      try [stress]
      + Self.examples.flatMap { example in
        try Self.locales.map { (example, $0, try Self.laidOut(example, locale: $0, paper: paper)) }
      }
    for (example, locale, receipt) in receipts {
      for gray in [false, true] {
        let (reference, keeping) = Self.renderers(gray: gray, keptIn: kept)
        let expected = try reference.render(receipt)
        for _ in 1..<GlyphRunBitmaps.keptAtSighting { _ = try keeping.render(receipt) }  // seen, not yet kept
        let before = kept.keptCount
        let pages = try keeping.render(receipt)
        #expect(kept.keptCount >= before)
        drawnFromKept += kept.keptCount
        let same = pages == expected  // not in the expectation: it would print every byte
        #expect(same, "\(example) \(locale) \(paper.name) \(gray ? "gray" : "1-bit")")
      }
      // Bands move the page up by whole dots: kept runs land on the same dots.
      let (reference, keeping) = Self.renderers(keptIn: kept)
      let page = try reference.render(receipt)[0]
      var stacked: [UInt8] = []
      try keeping.render(receipt, page: 0, bands: 97) { _, band in stacked += band.data }
      let same = stacked == page.data
      #expect(same, "\(example) \(locale) \(paper.name) in bands")
    }
    #expect(drawnFromKept > 0, "no run was ever kept")
  }

  /// A run is kept the third time it is seen, and drawn from its coverage after that.
  @Test func aRunIsKeptTheThirdTimeItIsSeen() throws {
    let kept = GlyphRunBitmaps()
    var renderer = RasterRenderer()
    renderer.runBitmaps = kept
    let receipt = try Self.laidOut("small", locale: "en_US", paper: .mm80)
    _ = try renderer.render(receipt)
    _ = try renderer.render(receipt)
    let afterSecond = kept.keptCount
    _ = try renderer.render(receipt)
    #expect(kept.keptCount > afterSecond, "runs seen three times are kept")
    let afterThird = kept.keptCount
    _ = try renderer.render(receipt)
    #expect(kept.keptCount == afterThird, "nothing new to keep the fourth time")
  }

  /// Kept runs are added straight into the page's pixels: where ink overlaps (each run beside a
  /// copy of itself a fraction of a dot away, on gray pages whose edges are partial coverage),
  /// the sum saturates as cairo's ADD does, and runs reaching past the page's edges are clipped.
  @Test func overlappingAndCutRunsAddAsCairoAddsThem() throws {
    var receipt = try Self.laidOut("small", locale: "de_DE", paper: .mm80)
    let page = receipt.pages[0]
    var items = page.items
    for case .glyphs(var run) in page.items {
      run.origin.x += 0.3
      run.origin.y -= 0.2
      items.append(.glyphs(run))
      run.origin.x -= page.width * 0.6  // reaches past the left edge
      items.append(.glyphs(run))
      run.origin.x += page.width * 1.1  // and past the right one
      items.append(.glyphs(run))
    }
    receipt.pages[0].items = items
    let kept = GlyphRunBitmaps()
    for gray in [false, true] {
      let (reference, keeping) = Self.renderers(gray: gray, keptIn: kept)
      let expected = try reference.render(receipt)
      for _ in 0..<GlyphRunBitmaps.keptAtSighting { _ = try keeping.render(receipt) }
      #expect(kept.keptCount > 0)
      let same = try keeping.render(receipt) == expected
      #expect(same, gray ? "gray" : "1-bit")
    }
  }

  /// A run of huge type is never kept (its coverage would take a table's share of the bound
  /// alone) and is drawn glyph by glyph, the same dots.
  @Test func aRunOfHugeTypeIsDrawnGlyphByGlyph() throws {
    // One "M" at 280 pt: its coverage ~560 × 580 dots, over 256 KB.
    let big = AttributedText("M", attributes: TextAttributes(font: FontDescriptor(size: 280)))
    let receipt = try ReceiptLayoutEngine().layout(ReceiptDocument(blocks: [.text(big)]))
    let kept = GlyphRunBitmaps()
    let (reference, keeping) = Self.renderers(keptIn: kept)
    for _ in 0...GlyphRunBitmaps.keptAtSighting { _ = try keeping.render(receipt) }
    #expect(receipt.pages[0].items.count == 1, "one run")
    #expect(kept.keptCount == 0)
    let same = try keeping.render(receipt) == reference.render(receipt)
    #expect(same)
  }

  /// The add is `min(255, a + b)` byte by byte, whatever the length and alignment.
  @Test func addingSaturatesEveryByte() {
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<500 {
      let count = Int.random(in: 0...70, using: &generator)
      let (offsetA, offsetB) = (Int.random(in: 0..<16, using: &generator), Int.random(in: 0..<16, using: &generator))
      var a = (0..<(count + offsetA)).map { _ in UInt8.random(in: 0...255, using: &generator) }
      let b = (0..<(count + offsetB)).map { _ in UInt8.random(in: 0...255, using: &generator) }
      let expected = (0..<count).map { UInt8(min(255, Int(a[offsetA + $0]) + Int(b[offsetB + $0]))) }
      a.withUnsafeMutableBytes { to in
        b.withUnsafeBytes { from in
          CairoPainter.addSaturating(from.baseAddress! + offsetB, to.baseAddress! + offsetA, count: count)
        }
      }
      #expect(Array(a[offsetA...]) == expected)
    }
  }
}
