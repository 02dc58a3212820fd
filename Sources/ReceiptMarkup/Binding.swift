import Foundation

/// A data path such as `order.items[2].price`.
struct DataPath: Hashable, CustomStringConvertible {
  enum Segment: Hashable {
    case key(String)
    case index(Int)
  }
  var segments: [Segment]

  /// Parses `a.b[0].c`; nil if malformed.
  init?(_ text: String) {
    var segments: [Segment] = []
    var current = ""
    var i = text.startIndex
    func flush() -> Bool {
      guard !current.isEmpty else { return false }
      segments.append(.key(current))
      current = ""
      return true
    }
    while i < text.endIndex {
      let c = text[i]
      if c == "." {
        if current.isEmpty, case .index = segments.last {
        } else if !flush() {
          return nil
        }
      } else if c == "[" {
        if !current.isEmpty { _ = flush() }
        guard let close = text[i...].firstIndex(of: "]"), let n = Int(text[text.index(after: i)..<close]), n >= 0
        else { return nil }
        segments.append(.index(n))
        i = close
      } else if c.isLetter || c.isNumber || c == "_" || c == "-" {
        current.append(c)
      } else {
        return nil
      }
      i = text.index(after: i)
    }
    if !current.isEmpty { segments.append(.key(current)) }
    guard case .key = segments.first else { return nil }
    self.segments = segments
  }

  var description: String {
    segments.enumerated().map { i, s in
      switch s {
      case .key(let k): return i == 0 ? k : ".\(k)"
      case .index(let n): return "[\(n)]"
      }
    }.joined()
  }
}

/// One `${…}` or `$path` in a string: a path and its formatters.
struct Binding {
  var path: DataPath
  var formatters: [(name: String, argument: String?)]
}

/// A string with bindings, split into literal and bound parts.
enum Interpolation {
  enum Part {
    case literal(String)
    case binding(Binding)
  }

  /// Splits `text` at `$path`, `${path | f:arg}` and `$$` (a literal `$`).
  static func parse(_ text: String, at location: SourceLocation) throws -> [Part] {
    guard text.contains("$") else { return [.literal(text)] }
    var parts: [Part] = []
    var literal = ""
    let chars = Array(text)
    var i = 0
    while i < chars.count {
      guard chars[i] == "$", i + 1 < chars.count else {
        literal.append(chars[i])
        i += 1
        continue
      }
      let next = chars[i + 1]
      if next == "$" {
        literal.append("$")
        i += 2
      } else if next == "{" {
        guard let close = chars[(i + 2)...].firstIndex(of: "}") else {
          throw TemplateError(location, "'${' without a closing '}' in \"\(text)\"")
        }
        if !literal.isEmpty { parts.append(.literal(literal)) }
        literal = ""
        parts.append(.binding(try binding(String(chars[(i + 2)..<close]), at: location)))
        i = close + 1
      } else if next.isLetter || next == "_" {
        var j = i + 1
        while j < chars.count, chars[j].isLetter || chars[j].isNumber || "_-.[]".contains(chars[j]) { j += 1 }
        // A sentence's full stop is not part of the path.
        while j > i + 1, chars[j - 1] == "." || chars[j - 1] == "-" { j -= 1 }
        let pathText = String(chars[(i + 1)..<j])
        guard let path = DataPath(pathText) else { throw TemplateError(location, "malformed data path '$\(pathText)'") }
        if !literal.isEmpty { parts.append(.literal(literal)) }
        literal = ""
        parts.append(.binding(Binding(path: path, formatters: [])))
        i = j
      } else {
        literal.append("$")
        i += 1
      }
    }
    if !literal.isEmpty { parts.append(.literal(literal)) }
    return parts
  }

  /// Parses the inside of `${ path | name:arg | name }`.
  static func binding(_ inside: String, at location: SourceLocation) throws -> Binding {
    let pieces = splitOutsideQuotes(inside, by: "|")
    let pathText = pieces[0].trimmingCharacters(in: .whitespaces)
    let bare = pathText.hasPrefix("$") ? String(pathText.dropFirst()) : pathText
    guard let path = DataPath(bare) else { throw TemplateError(location, "malformed data path '\(pathText)'") }
    var formatters: [(String, String?)] = []
    for piece in pieces.dropFirst() {
      let spec = piece.trimmingCharacters(in: .whitespaces)
      if let colon = spec.firstIndex(of: ":") {
        var argument = spec[spec.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        if argument.count >= 2, let q = argument.first, q == "'" || q == "\"", argument.last == q {
          argument = String(argument.dropFirst().dropLast())
        }
        formatters.append((String(spec[..<colon]), argument))
      } else {
        formatters.append((spec, nil))
      }
    }
    for (name, _) in formatters where !ValueFormatter.names.contains(name) {
      throw TemplateError(location, unknown("formatter", name, among: ValueFormatter.names))
    }
    return Binding(path: path, formatters: formatters)
  }

  static func splitOutsideQuotes(_ text: String, by separator: Character) -> [String] {
    var parts: [String] = []
    var current = ""
    var quote: Character?
    for c in text {
      if let q = quote {
        if c == q { quote = nil }
        current.append(c)
      } else if c == "'" || c == "\"" {
        quote = c
        current.append(c)
      } else if c == separator {
        parts.append(current)
        current = ""
      } else {
        current.append(c)
      }
    }
    parts.append(current)
    return parts
  }
}
