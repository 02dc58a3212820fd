public import Foundation
import ReceiptLayout

/// What ``ReceiptEngine/warmUp(templates:)`` did.
public struct WarmUp: Sendable {
  /// Languages whose hyphenation dictionary is loaded.
  public var dictionaries: [String] = []
  /// Example orders laid out (their fonts loaded and shaped).
  public var examples: [String] = []
  /// Seconds it took.
  public var seconds: Double = 0
}

extension ReceiptEngine {
  /// Most example orders laid out by a warm-up.
  static let maxWarmUpExamples = 16

  /// Makes the first receipt as fast as the next (a daemon does this before it reports ready):
  /// loads the hyphenation dictionaries of every locale the templates have strings for
  /// (`Strings/<locale>.json`) or their example orders name, and lays out each example order
  /// (`Examples/*.json`, at most 16) through the `receipt` template, which loads and shapes its
  /// fonts. Best effort: an example that does not render is skipped.
  public func warmUp(templates: URL) -> WarmUp {
    let start = Date()
    var result = WarmUp()
    let files = FileManager.default
    func json(in directory: String) -> [URL] {
      let url = templates.appendingPathComponent(directory)
      let names = (try? files.contentsOfDirectory(atPath: url.path)) ?? []
      return names.filter { $0.hasSuffix(".json") }.sorted().map { url.appendingPathComponent($0) }
    }
    var languages = Set(json(in: "Strings").map { $0.deletingPathExtension().lastPathComponent })
    let examples = json(in: "Examples").prefix(Self.maxWarmUpExamples)
    for example in examples {
      guard let data = try? Data(contentsOf: example), data.count <= 1 << 20 else { continue }
      if let order = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
        let locale = order["locale"] as? String
      {
        languages.insert(locale)
      }
      guard let document = try? templateDocument(template: "receipt", data: data, templates: templates).document,
        (try? layout(document)) != nil
      else { continue }
      result.examples.append(example.lastPathComponent)
    }
    result.dictionaries = ReceiptLayoutEngine.loadHyphenation(languages: languages.sorted())
    result.seconds = Date().timeIntervalSince(start)
    return result
  }
}
