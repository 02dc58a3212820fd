import Foundation

/// Orders as varied as a shop's day, for tests that need many: the shipped examples with items
/// drawn at random — Latin, long compounds, digits, Arabic, Japanese, emoji — and a locale each.
public enum GeneratedOrders {
  /// Words item names are made of.
  static let words = [
    "Cappuccino", "Franzbrötchen", "Donaudampfschifffahrtsgesellschaftskapitän", "Œuf", "قهوة", "抹茶ラテ", "🧾",
    "Bagel", "Soup of the day", "x", "12345678901234567890", "Crème brûlée", "Käsespätzle", "水", "شاي بالنعناع",
  ]

  /// Order `n`: one of the shipped examples with 0–40 items drawn with `random`, and its locale.
  public static func order(_ n: Int, _ random: inout SeededGenerator) throws -> (data: Data, locale: String) {
    let names = ["small", "large", "restaurant", "discounts", "arabic", "japanese"]
    let file = Tool.packageRoot.appendingPathComponent("Templates/Examples/\(names[n % names.count]).json")
    guard var object = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any] else {
      throw RigError("\(file.path) is not a JSON object")
    }
    object["items"] = (0..<Int.random(in: 0...40, using: &random)).map { _ -> [String: Any] in
      let name = (0..<Int.random(in: 1...4, using: &random)).map { _ in words.randomElement(using: &random)! }
      let price = Double(Int.random(in: 0...99_999, using: &random)) / 100
      let qty = Int.random(in: 1...12, using: &random)
      return [
        "name": name.joined(separator: " "), "qty": qty, "price": price, "total": price * Double(qty),
        "modifiers": Bool.random(using: &random) ? [words.randomElement(using: &random)!] : [],
      ]
    }
    object["number"] = "\(100_000 + n)"
    let locale = ["en_US", "de_DE", "fr_FR", "ja_JP", "ar_SA"][Int.random(in: 0..<5, using: &random)]
    object["locale"] = locale
    return (try JSONSerialization.data(withJSONObject: object), locale)
  }
}
