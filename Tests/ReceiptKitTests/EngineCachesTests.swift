import Foundation
import ReceiptTestSupport
import Testing

@testable import ReceiptKit
@testable import ReceiptLayout
@testable import ReceiptMarkup
@testable import ReceiptRender

/// What an engine keeps between receipts is its context (``EngineCaches``), handed down to the
/// template library and the renderers it makes: an engine with a context of its own fills that
/// one and no other, and two engines given one context share what it keeps.
@Suite struct EngineCachesTests {
  static let templates = PrinterModelTests.templates

  static func render(_ engine: ReceiptEngine, _ format: OutputFormat) throws -> RenderedReceipt {
    let data = try Data(contentsOf: templates.appendingPathComponent("Examples/restaurant.json"))
    let bound = try engine.templateDocument(template: "receipt", data: data, templates: templates)
    return try engine.render(bound.document, format: format)
  }

  static func kept(_ caches: EngineCaches) -> [Int] {
    [
      caches.markup.files.documentCount, caches.markup.numbers.count, caches.layout.images.count,
      caches.render.imageDots.count, caches.render.imageSurfaces.count,
    ]
  }

  @Test func anEngineKeepsWhatItParsesAndDrawsInItsOwnContext() throws {
    let mine = EngineCaches()
    let other = EngineCaches()
    let engine = try ReceiptEngine(caches: mine)
    #expect(Self.kept(mine) == [0, 0, 0, 0, 0])
    let png = try Self.render(engine, .png)
    let pdf = try Self.render(engine, .pdf)
    // The template and its includes parsed, its amounts formatted, the logo decoded, its dots
    // and its PDF surface kept: all in the engine's context, nothing in another.
    #expect(Self.kept(mine).allSatisfy { $0 > 0 }, "\(Self.kept(mine))")
    #expect(Self.kept(other) == [0, 0, 0, 0, 0])
    // A second engine on the same context finds it filled and draws the same bytes.
    let before = Self.kept(mine)
    let second = try ReceiptEngine(caches: mine)
    #expect(try Self.render(second, .png).parts == png.parts)
    #expect(try Self.render(second, .pdf).parts == pdf.parts)
    #expect(Self.kept(mine) == before, "nothing new to keep")
    // And an engine on another context draws them too, from nothing.
    #expect(try Self.render(try ReceiptEngine(caches: other), .png).parts == png.parts)
  }
}
