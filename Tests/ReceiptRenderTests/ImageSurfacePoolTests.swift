import Dispatch
import Foundation
import ReceiptLayout
@_spi(Internals) import ReceiptModel
import ReceiptTestSupport
import Testing

@testable import ReceiptRender

/// PDFs draw images from cairo surfaces kept between renders (`ImageSurfacePool`): the bytes are
/// those drawn from new surfaces, on any number of threads at once; a surface is never in two
/// documents at a time; what is kept is bounded.
@Suite struct ImageSurfacePoolTests {
  /// The shipped logo's PNG (the decoded-image cache keeps these bytes as a key: lsan.supp).
  static func logoBytes() throws -> Data {
    try Data(contentsOf: Tool.packageRoot.appendingPathComponent("Templates/logo.png"))
  }

  static func documents() throws -> [ReceiptDocument] {
    let png = try DitherTests().gradientPNG()
    let logo = try logoBytes()
    let text = Block.text(AttributedText("Corner Café\n2 × Cappuccino\t7.00"))
    return [
      ReceiptDocument(blocks: [.image(ImageBlock(data: logo, width: .mm(24))), text]),
      ReceiptDocument(blocks: [.image(ImageBlock(data: png)), text, .image(ImageBlock(data: logo, alignment: .right))]),
      ReceiptDocument(blocks: [text, .image(ImageBlock(data: png, width: .mm(30.7), alignment: .center))]),
    ]
  }

  @Test func keptSurfacesDrawWhatNewOnesDrawOnManyThreadsAtOnce() throws {
    let engine = try ReceiptLayoutEngine()
    let receipts = try Self.documents().map { try engine.layout($0) }
    // A pool of its own for each reference: every image a new surface, as before the pool.
    let fresh = try receipts.map { receipt in
      var renderer = PDFRenderer()
      renderer.imagePool = ImageSurfacePool()
      return try renderer.render(receipt)
    }
    var shared = PDFRenderer()
    shared.imagePool = ImageSurfacePool()
    let renderer = shared
    let mismatches = Locked<[String]>([])
    DispatchQueue.concurrentPerform(iterations: 4) { worker in
      for round in 0..<12 {
        let i = (worker + round) % receipts.count
        let same = (try? renderer.render(receipts[i])) == fresh[i]
        if !same { mismatches.withLock { $0.append("worker \(worker) round \(round): receipt \(i)") } }
      }
    }
    #expect(mismatches.withLock { $0 }.isEmpty, "\(mismatches.withLock { $0 })")
    #expect(renderer.imagePool.count >= 2, "the logo and the gradient are kept")
  }

  /// One surface for an image drawn twice in a document: one image object in the PDF, as
  /// poppler's `pdfimages` lists them.
  @Test func anImageDrawnTwiceIsOneImageInThePDF() throws {
    let logo = try Self.logoBytes()
    let receipt = try ReceiptLayoutEngine().layout(
      ReceiptDocument(blocks: [
        .image(ImageBlock(data: logo)), .text(AttributedText("Thank you")), .image(ImageBlock(data: logo)),
      ]))
    let url = try Tool.temporaryDirectory().appendingPathComponent("twice.pdf")
    try PDFRenderer().render(receipt).write(to: url)
    let list = try Tool.run("pdfimages", ["-list", url.path]).stdout.split(separator: "\n").dropFirst(2)
    let objects = Set(list.map { $0.split(separator: " ").map(String.init)[10] })  // the image's object number
    #expect(list.count == 2 && objects.count == 1, "\(list)")
  }

  @Test func aSurfaceIsInOneDocumentAtATime() throws {
    let pool = ImageSurfacePool()
    let image = GrayImage(width: 8, height: 4, pixels: Array(repeating: 128, count: 32))
    let first = try pool.lend(image)
    let second = try pool.lend(image)
    #expect(first.surface !== second.surface, "lent twice before given back: two surfaces")
    pool.giveBack([first, second])
    #expect(pool.count == 2)
    let again = try pool.lend(image)
    #expect(again.surface === first.surface || again.surface === second.surface, "a kept one is lent again")
    #expect(pool.count == 1)
  }

  @Test func whatIsKeptIsBounded() throws {
    let pool = ImageSurfacePool()
    let side = 512  // 1 MiB of RGB24 a surface
    let images = (0..<40).map {
      GrayImage(width: side, height: side, pixels: Array(repeating: UInt8($0), count: side * side))
    }
    pool.giveBack(try images.map { try pool.lend($0) })
    #expect(pool.count * side * side * 4 <= ImageSurfacePool.maximumBytes)
    #expect(pool.count == ImageSurfacePool.maximumBytes / (side * side * 4))
  }
}
