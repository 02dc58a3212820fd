import Foundation
import ReceiptKit
import ReceiptModel
import ReceiptTestSupport
import Testing

@testable import ReceiptLayout

/// Shaped words from the cache give the very layout that shaping every item whole gives: every
/// shipped template with every example order, in every shipped locale, on 80 mm and 58 mm paper
/// (glyph ids, positions, clusters, line breaks, cut lengths).
@Suite struct WordShapingCorpusTests {
  static let templates = Tool.packageRoot.appendingPathComponent("Templates")
  let kit = try! ReceiptEngine()

  static let examples: [String] = {
    let names =
      (try? FileManager.default.contentsOfDirectory(atPath: templates.appendingPathComponent("Examples").path))
    return (names ?? []).filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.sorted()
  }()

  @Test(arguments: ["en_US", "de_DE", "fr_FR", "ja_JP", "ar_EG"])
  func everyExampleLaysOutTheSameWithAndWithoutTheCache(locale: String) throws {
    #expect(Self.examples.count >= 6)
    let cached = try ReceiptLayoutEngine(wordShaping: true, fontCache: nil)
    let whole = try ReceiptLayoutEngine(wordShaping: false, fontCache: nil)
    var compared = 0
    for template in ["receipt", "kitchen", "gift"] {
      for example in Self.examples {
        let data = try Data(contentsOf: Self.templates.appendingPathComponent("Examples/\(example).json"))
        for paper in [Paper.mm80, .mm58] {
          let document = try kit.templateDocument(
            template: template, data: data, templates: Self.templates,
            options: TemplateOptions(locale: locale, paper: paper)
          ).document
          // Twice with the cache: cold (every word a miss) and warm (hits).
          let first = Self.outcome(cached, document)
          let second = Self.outcome(cached, document)
          let reference = Self.outcome(whole, document)
          #expect(first == reference, "\(template) \(example) \(locale) \(paper.name): cold cache")
          #expect(second == reference, "\(template) \(example) \(locale) \(paper.name): warm cache")
          compared += 1
        }
      }
    }
    #expect(compared == 3 * Self.examples.count * 2)
    // Arabic receipts take the general path except for their Latin lines.
    #expect(cached.wordCacheHits > (locale == "ar_EG" ? 10 : 1000), "the cache was used")
  }

  /// The layout, or the error's words (the 200-item order in Arabic is longer than a receipt may
  /// be: the message tells its length, which must also agree).
  /// Paragraphs are prepared afresh each time (the engine would otherwise serve the warm layout
  /// its kept paragraphs, and shape no word again).
  static func outcome(_ engine: ReceiptLayoutEngine, _ document: ReceiptDocument) -> Outcome {
    engine.forgetParagraphs()
    do { return .laidOut(try engine.layout(document)) } catch { return .failed("\(error)") }
  }

  enum Outcome: Equatable {
    case laidOut(LaidOutReceipt)
    case failed(String)
  }
}
