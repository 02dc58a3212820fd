import Foundation
import ReceiptKit
import ReceiptTestSupport
import Testing

/// What the daemon does before it reports ready (``ReceiptEngine/warmUp(templates:)``).
@Suite struct WarmUpTests {
  static var templates: URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Templates")
      .standardizedFileURL
  }

  @Test func theShippedTemplatesWarmEveryDictionaryAndExample() throws {
    let warm = try ReceiptEngine().warmUp(templates: Self.templates)
    let examples = try FileManager.default.contentsOfDirectory(
      atPath: Self.templates.appendingPathComponent("Examples").path
    ).filter { $0.hasSuffix(".json") }
    #expect(warm.examples.sorted() == examples.sorted())
    // Debian's hyphen-de, hyphen-fr and hyphen-en-us are installed; Arabic and Japanese have none.
    for language in ["de", "en", "fr"] { #expect(warm.dictionaries.contains(language), "\(warm.dictionaries)") }
    #expect(!warm.dictionaries.contains("ja") && !warm.dictionaries.contains("ar"))
  }

  @Test func anExampleThatDoesNotRenderIsSkipped() throws {
    let directory = try Tool.temporaryDirectory()
    try FileManager.default.copyItem(at: Self.templates, to: directory.appendingPathComponent("T"))
    let templates = directory.appendingPathComponent("T")
    try "{ not json".write(
      to: templates.appendingPathComponent("Examples/broken.json"), atomically: true, encoding: .utf8)
    let warm = try ReceiptEngine().warmUp(templates: templates)
    #expect(!warm.examples.contains("broken.json") && warm.examples.contains("small.json"))
  }
}
