import Foundation

/// `@key` lookups in `Strings/*.json`, falling back from the receipt's locale to its language
/// (`de_AT` → `de`), then to the template's own locale and its language, then to English, and
/// last to the key itself (printed, so a gap is visible).
struct LocalizedStrings {
  private var table: [String: String] = [:]
  private(set) var missing: Set<String> = []
  /// Strings files the receipt's locale would use but the directory lacks.
  private(set) var missingFiles: [String] = []
  /// Whether any `@key` was looked up (warnings about files only matter then).
  private(set) var used = false

  /// Where a text's parts (``Part``) are kept once worked out.
  private let bindings: ParsedBindings

  /// A piece of a text to localize: text as it is, or a `@key` word.
  enum Part: Sendable {
    case text(String)
    case key(String)
  }

  init(directory: URL, locale: Locale, templateLocale: Locale? = nil, caches: MarkupCaches) {
    bindings = caches.bindings
    let key = "\(directory.path)\u{0}\(locale.identifier)\u{0}\(templateLocale?.identifier ?? "")"
    let merged = caches.files.mergedStrings(in: directory.path, key: key) {
      func names(_ locale: Locale) -> [String] {
        let identifier = locale.identifier.replacingOccurrences(of: "-", with: "_")
        let language = locale.language.languageCode?.identifier ?? identifier
        return identifier == language ? [identifier] : [identifier, language]
      }
      let own = names(locale)
      var chain = own + (templateLocale.map(names) ?? []) + ["en"]
      chain = chain.reduce(into: []) { if !$0.contains($1) { $0.append($1) } }
      return (names: chain.reversed(), own: own)  // most specific last, so it wins
    }
    table = merged.table
    missingFiles = merged.missingFiles
  }

  /// The string for a key, if the table has one (no warning otherwise).
  func lookupIfPresent(_ key: String) -> String? { table[key] }

  mutating func lookup(_ key: String) -> String {
    used = true
    if let value = table[key] { return value }
    missing.insert(key)
    return key
  }

  /// Replaces `@key` words (at the start or after a space or bracket) with their strings; `@@` is a literal `@`.
  mutating func localize(_ text: String) -> String {
    guard text.utf8.contains(UInt8(ascii: "@")) else { return text }  // a byte test, not NSString
    // Where the words are depends on the text alone: found once per text (``ParsedBindings``).
    var out = ""
    for part in bindings.localization(text, parse: { Self.parts(of: text) }) {
      switch part {
      case .text(let s): out += s
      case .key(let key): out += lookup(key)
      }
    }
    return out
  }

  /// A text's `@key` words and the text around them (`@@` becomes a literal `@`).
  static func parts(of text: String) -> [Part] {
    var parts: [Part] = []
    var literal = ""
    let chars = Array(text)
    var i = 0
    while i < chars.count {
      let atWordStart = i == 0 || chars[i - 1].isWhitespace || "([{".contains(chars[i - 1])
      if chars[i] == "@", i + 1 < chars.count, chars[i + 1] == "@" {
        literal.append("@")
        i += 2
      } else if chars[i] == "@", atWordStart, i + 1 < chars.count, chars[i + 1].isLetter {
        var j = i + 1
        while j < chars.count, chars[j].isLetter || chars[j].isNumber || "_.-".contains(chars[j]) { j += 1 }
        while j > i + 1, chars[j - 1] == "." || chars[j - 1] == "-" { j -= 1 }
        if !literal.isEmpty { parts.append(.text(literal)) }
        literal = ""
        parts.append(.key(String(chars[(i + 1)..<j])))
        i = j
      } else {
        literal.append(chars[i])
        i += 1
      }
    }
    if !literal.isEmpty { parts.append(.text(literal)) }
    return parts
  }

  /// The warnings: one per missing Strings file of the receipt's locale (when strings are used),
  /// and one naming the keys no file has.
  var warnings: [String] {
    var out: [String] = []
    if used, !missingFiles.isEmpty {
      out.append(
        "no \(missingFiles.joined(separator: " or ")) in the templates directory; strings fall back to the template's locale, then English"
      )
    }
    if !missing.isEmpty {
      let keys = missing.sorted().map { "@\($0)" }.joined(separator: ", ")
      out.append(
        "no translation for \(keys) in any Strings file; \(missing.count == 1 ? "it prints as its key" : "they print as their keys")"
      )
    }
    return out
  }
}
