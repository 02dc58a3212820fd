// Benchmarks of layout, template binding and every renderer, on the ordo-one harness.
// Run: make benchmark   (swift package --disable-sandbox benchmark)
import Benchmark
import Foundation
import ReceiptKit
import ReceiptLayout
import ReceiptPrint
import ReceiptRender

let templates = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Templates")
  .standardizedFileURL
let words = "coffee latte bagel muffin tea juice water scone toast bowl salad wrap soup cake cookie pie".split(
  separator: " ")

/// A 40-character line of receipt words.
func line(_ seed: Int) -> String {
  var text = ""
  var i = seed
  while text.count < 40 {
    text += (text.isEmpty ? "" : " ") + words[i % words.count]
    i += 7
  }
  return String(text.prefix(40))
}

func order(_ name: String) -> Data {
  (try? Data(contentsOf: templates.appendingPathComponent("Examples/\(name).json"))) ?? Data()
}

let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .init(
    metrics: [.wallClock, .instructions, .mallocCountTotal], warmupIterations: 10, scalingFactor: .one,
    maxDuration: .seconds(2), maxIterations: 10_000)

  let engine = try! ReceiptLayoutEngine()
  let kit = try! ReceiptEngine()
  let width = PageSetup().contentWidth.points
  let oneLine = AttributedText(line(0))
  let lines = (0..<40).map(line)

  // The peer: HarfBuzz alone on the same line (one hb_shape on a reused buffer).
  Benchmark("Shaping one line (HarfBuzz alone)") { benchmark in
    for _ in benchmark.scaledIterations { blackHole(try engine.shapeOnly(lines[0], font: .receiptDefault)) }
  }
  // Layout cases prepare every paragraph afresh (as for texts never seen before): the engine
  // keeps prepared paragraphs across documents, so a repeated document would measure the cache.
  // "kept" rows measure the same document again with its paragraphs kept (a batch's repeats).
  Benchmark("Layout one 40-char line") { benchmark in
    for _ in benchmark.scaledIterations {
      engine.forgetParagraphs()
      blackHole(try engine.measure(oneLine, width: width))
    }
  }
  let fortyLines = ReceiptDocument(blocks: lines.map { .text(AttributedText($0)) })
  Benchmark("Layout 40-line receipt") { benchmark in
    for _ in benchmark.scaledIterations {
      engine.forgetParagraphs()
      blackHole(try engine.layout(fortyLines))
    }
  }
  func receipt(_ example: String, locale: String? = nil) -> ReceiptDocument {
    try! kit.templateDocument(
      template: "receipt", data: order(example), templates: templates, options: TemplateOptions(locale: locale)
    ).document
  }
  for (name, document) in [
    ("Layout 200-item receipt", receipt("large")),
    ("Layout 200-item receipt, de_DE (hyphenates)", receipt("large", locale: "de_DE")),
    ("Layout small receipt, en_US", receipt("small", locale: "en_US")),
    ("Layout small receipt, de_DE", receipt("small", locale: "de_DE")),
    ("Layout CJK receipt", receipt("japanese")), ("Layout Arabic receipt", receipt("arabic")),
  ] {
    Benchmark(name) { benchmark in
      for _ in benchmark.scaledIterations {
        engine.forgetParagraphs()
        blackHole(try engine.layout(document))
      }
    }
  }
  let large = receipt("large")
  Benchmark("Layout 200-item receipt, paragraphs kept") { benchmark in
    for _ in benchmark.scaledIterations { blackHole(try engine.layout(large)) }
  }
  let small = order("small")
  for locale in ["en_US", "de_DE", "fr_FR", "ja_JP", "ar_SA"] {
    Benchmark("Template binding (receipt.xml, small order, \(locale))") { benchmark in
      for _ in benchmark.scaledIterations {
        blackHole(
          try kit.templateDocument(
            template: "receipt", data: small, templates: templates, options: TemplateOptions(locale: locale)))
      }
    }
  }

  // Renderers, all on one receipt: 40 lines, a QR code and a Code 128.
  var blocks = lines.map { Block.text(AttributedText($0)) }
  blocks += [
    .barcode(Barcode(.qr, data: "https://example.com/r/1042", moduleDots: 3)),
    .barcode(Barcode(.code128, data: "RCPT-1042")),
  ]
  let codes = ReceiptDocument(blocks: blocks)
  let laidOut = try! engine.layout(codes)
  Benchmark("Render PDF") { benchmark in
    for _ in benchmark.scaledIterations { blackHole(try PDFRenderer().render(laidOut)) }
  }
  Benchmark("Render PNG (raster + libpng)") { benchmark in
    for _ in benchmark.scaledIterations {
      blackHole(try PNGWriter().encode(try RasterRenderer().render(laidOut)[0], dpi: 203))
    }
  }
  Benchmark("Render PWG raster (raster + libcups)") { benchmark in
    for _ in benchmark.scaledIterations {
      blackHole(try PWGRasterWriter().encode(try RasterRenderer().render(laidOut), setup: laidOut.pageSetup))
    }
  }
  Benchmark("Render ESC/POS (raster + encoder)") { benchmark in
    for _ in benchmark.scaledIterations {
      blackHole(ESCPOSEncoder().encode(try RasterRenderer().render(laidOut), receipt: laidOut))
    }
  }
  Benchmark("Layout + PWG raster (target ≤ 2 ms)") { benchmark in
    for _ in benchmark.scaledIterations {
      engine.forgetParagraphs()
      let l = try engine.layout(codes)
      blackHole(try PWGRasterWriter().encode(try RasterRenderer().render(l), setup: l.pageSetup))
    }
  }
}
