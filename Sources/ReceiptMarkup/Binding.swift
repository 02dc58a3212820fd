import Foundation

/// A data path such as `order.items[2].price`.
struct DataPath: Hashable, Sendable, CustomStringConvertible {
  enum Segment: Hashable, Sendable {
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

  /// A path of segments that starts with a key.
  init(segments: [Segment]) {
    precondition(segments.first.map { if case .key = $0 { true } else { false } } ?? false)
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

/// A string with bindings, split into literal and bound parts.
enum Interpolation {
  enum Part: Sendable {
    case literal(String)
    /// A `$path` or `${expression | formatter …}`; offsets are in the whole string.
    case binding(Expression)
  }

  /// Splits `text` at `$path`, `${expression | f:arg}` and `$$` (a literal `$`); a parse
  /// error is placed by `locator` at the offending character.
  static func parse(_ text: String, at locator: Locator) throws -> [Part] {
    // A byte test (`$` is ASCII, never inside another character's UTF-8): Foundation's
    // `contains` searched the whole string through NSString for every text of every receipt.
    guard text.utf8.contains(UInt8(ascii: "$")) else { return [.literal(text)] }
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
        if !literal.isEmpty { parts.append(.literal(literal)) }
        literal = ""
        do {
          let (expression, after) = try ExpressionParser.parseBraced(chars, from: i + 2)
          parts.append(.binding(expression))
          i = after
        } catch {
          throw TemplateError(locator(error.offset), error.message)
        }
      } else if next.isLetter || next == "_" {
        var j = i + 1
        while j < chars.count, chars[j].isLetter || chars[j].isNumber || "_-.[]".contains(chars[j]) { j += 1 }
        // A sentence's full stop is not part of the path.
        while j > i + 1, chars[j - 1] == "." || chars[j - 1] == "-" { j -= 1 }
        let pathText = String(chars[(i + 1)..<j])
        guard let path = DataPath(pathText) else {
          throw TemplateError(locator(i), "malformed data path '$\(pathText)'")
        }
        if !literal.isEmpty { parts.append(.literal(literal)) }
        literal = ""
        parts.append(.binding(.path(path, at: i)))
        i = j
      } else {
        literal.append("$")
        i += 1
      }
    }
    if !literal.isEmpty { parts.append(.literal(literal)) }
    return parts
  }

  /// Parses a whole attribute (`test`, `items`) as one expression; `${…}` around it is allowed.
  static func expression(_ text: String, at locator: Locator) throws -> Expression {
    do {
      return try ExpressionParser.parse(text)
    } catch {
      throw TemplateError(locator(error.offset), error.message)
    }
  }
}
