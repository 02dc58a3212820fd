import Foundation

/// `@key` lookups in `Strings/<locale>.json` (then the language alone, e.g. `de` for `de_AT`);
/// a missing key renders as the key itself so it is visible on the receipt.
struct LocalizedStrings {
  private var table: [String: String] = [:]
  private(set) var missing: Set<String> = []

  init(directory: URL, locale: Locale) {
    let identifier = locale.identifier.replacingOccurrences(of: "-", with: "_")
    let language = locale.language.languageCode?.identifier ?? identifier
    for name in [language, identifier] where !name.isEmpty {
      let url = directory.appendingPathComponent("Strings").appendingPathComponent("\(name).json")
      if let data = try? Data(contentsOf: url),
        let object = try? JSONSerialization.jsonObject(with: data) as? [String: String]
      {
        table.merge(object) { _, specific in specific }
      }
    }
  }

  mutating func lookup(_ key: String) -> String {
    if let value = table[key] { return value }
    missing.insert(key)
    return key
  }

  /// Replaces `@key` words (at the start or after a space or bracket) with their strings; `@@` is a literal `@`.
  mutating func localize(_ text: String) -> String {
    guard text.contains("@") else { return text }
    var out = ""
    let chars = Array(text)
    var i = 0
    while i < chars.count {
      let atWordStart = i == 0 || chars[i - 1].isWhitespace || "([{".contains(chars[i - 1])
      if chars[i] == "@", i + 1 < chars.count, chars[i + 1] == "@" {
        out.append("@")
        i += 2
      } else if chars[i] == "@", atWordStart, i + 1 < chars.count, chars[i + 1].isLetter {
        var j = i + 1
        while j < chars.count, chars[j].isLetter || chars[j].isNumber || "_.-".contains(chars[j]) { j += 1 }
        while j > i + 1, chars[j - 1] == "." || chars[j - 1] == "-" { j -= 1 }
        out += lookup(String(chars[(i + 1)..<j]))
        i = j
      } else {
        out.append(chars[i])
        i += 1
      }
    }
    return out
  }
}
