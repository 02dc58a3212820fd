import Foundation

/// Reads the expression language: a recursive-descent parser over characters, so each token's
/// offset is known.
///
/// ```
/// piped      := expression ('|' formatter)*
/// formatter  := name (':' argument)*
/// expression := or;  or := and ('or' and)*;  and := not ('and' not)*
/// not        := ('not' | '!') not | comparison
/// comparison := sum (('==' | '!=' | '<' | '<=' | '>' | '>=') sum)?
/// sum        := product (('+' | '-') product)*;  product := unary (('*' | '/') unary)*
/// unary      := '-' unary | primary
/// primary    := number | 'string' | "string" | true | false | null | path | $path
///             | ${piped} | (piped)
/// ```
/// A name may contain `-` when a letter follows (`order-id`); write a minus with spaces.
///
/// Templates and `/v1/render` bodies are untrusted, and both the parser and the evaluator recurse
/// over the tree: nesting (parentheses, `${…}`, quoted expression arguments, `!`, `not` and unary
/// `-`) is limited to ``maxNesting`` levels and one expression to ``maxOperators`` operators, so
/// the tree is at most a few hundred levels deep whatever the input (30,000 `(` once overflowed
/// the stack).
struct ExpressionParser {
  /// Most levels of nesting in one expression.
  static let maxNesting = 32
  /// Most operators (unary, binary and formatters) in one expression, nested ones included.
  static let maxOperators = 256

  private let chars: [Character]
  private var i: Int
  /// Where the expression ends: the end of the string, or a `}` closing `${`.
  private(set) var end: Int
  /// The nesting level at the cursor (an enclosing parser's level included).
  private var nesting: Int
  /// Operators read so far (an enclosing parser's included).
  private var operators: Int

  init(_ text: some StringProtocol, from start: Int = 0, nesting: Int = 0, operators: Int = 0) {
    self.init(chars: Array(text), from: start, nesting: nesting, operators: operators)
  }

  /// A parser over characters already split (a `${` in a long text does not copy the text again).
  private init(chars: [Character], from start: Int, nesting: Int, operators: Int) {
    self.chars = chars
    i = start
    end = chars.count
    self.nesting = nesting
    self.operators = operators
  }

  /// Enters one level of nesting at `offset`, refusing input that nests too deep.
  private mutating func enter(at offset: Int) throws(ExpressionError) {
    nesting += 1
    guard nesting <= Self.maxNesting else {
      throw ExpressionError(
        offset: offset,
        message: "the expression nests deeper than \(Self.maxNesting) levels; "
          + "compute the value in the order data or split it over several elements")
    }
  }

  /// Counts one operator at `offset`, refusing expressions with too many.
  private mutating func count(at offset: Int) throws(ExpressionError) {
    operators += 1
    guard operators <= Self.maxOperators else {
      throw ExpressionError(
        offset: offset,
        message: "the expression has more than \(Self.maxOperators) operators; "
          + "compute the value in the order data or split it over several elements")
    }
  }

  /// Parses a whole string as one piped expression (`test="…"`, `items="…"`).
  static func parse(_ text: String) throws(ExpressionError) -> Expression {
    var parser = ExpressionParser(text)
    let e = try parser.piped()
    parser.skipSpace()
    if parser.i < parser.chars.count { throw parser.unexpected("an operator or the end") }
    return e
  }

  /// Parses `${…}` starting just after `${`; returns the expression and the offset after `}`.
  static func parseBraced(_ chars: [Character], from start: Int) throws(ExpressionError) -> (Expression, Int) {
    try parseBraced(chars, from: start, nesting: 0, operators: 0).0
  }

  /// `parseBraced` inside an enclosing expression: returns the expression, the offset after `}`
  /// and the operators counted so far.
  private static func parseBraced(
    _ chars: [Character], from start: Int, nesting: Int, operators: Int
  ) throws(ExpressionError) -> ((Expression, Int), Int) {
    var parser = ExpressionParser(chars: chars, from: start, nesting: nesting, operators: operators)
    let e = try parser.piped()
    parser.skipSpace()
    guard parser.peek == "}" else {
      if parser.i >= parser.chars.count {
        throw ExpressionError(offset: start - 2, message: "'${' without a closing '}'")
      }
      throw parser.unexpected("an operator, '|' or '}'")
    }
    return ((e, parser.i + 1), parser.operators)
  }

  // MARK: - Grammar

  mutating func piped() throws(ExpressionError) -> Expression {
    let e = try binary(minPrecedence: 1)
    var calls: [FormatterCall] = []
    while true {
      skipSpace()
      guard peek == "|" else { break }
      if peek(1) == "|" { throw ExpressionError(offset: i, message: "use 'and' and 'or' to join conditions") }
      try count(at: i)
      i += 1
      calls.append(try formatter())
    }
    return calls.isEmpty ? e : .piped(e, calls)
  }

  private mutating func binary(minPrecedence: Int) throws(ExpressionError) -> Expression {
    var lhs = try unary()
    while true {
      skipSpace()
      let start = i
      guard let op = peekOperator(), op.precedence >= minPrecedence else { break }
      try count(at: start)
      i += op == .and ? 3 : op == .or ? 2 : op.rawValue.count
      let rhs = try binary(minPrecedence: op.precedence + 1)
      if op.isComparison, case .binary(let inner, _, _, let at) = rhs, inner.isComparison {
        throw ExpressionError(offset: at, message: "comparisons cannot be chained; join them with 'and'")
      }
      lhs = .binary(op, lhs, rhs, at: start)
      if op.isComparison {
        skipSpace()
        if let next = peekOperator(), next.isComparison {
          throw ExpressionError(offset: i, message: "comparisons cannot be chained; join them with 'and'")
        }
      }
    }
    return lhs
  }

  private mutating func unary() throws(ExpressionError) -> Expression {
    skipSpace()
    let start = i
    if peek == "-" || (peek == "!" && peek(1) != "=") || word() == "not" {
      try enter(at: start)
      try count(at: start)
      defer { nesting -= 1 }
      if peek == "-" {
        i += 1
        return .unary(.minus, try unary(), at: start)
      }
      if peek == "!" {
        i += 1
        return .unary(.not, try unary(), at: start)
      }
      i += 3
      return .unary(.not, try binary(minPrecedence: 3), at: start)
    }
    return try primary()
  }

  private mutating func primary() throws(ExpressionError) -> Expression {
    skipSpace()
    let start = i
    guard let c = peek, c != "}" else { throw unexpected("a value, a $path or '('") }
    if c == "(" {
      try enter(at: start)
      defer { nesting -= 1 }
      i += 1
      let e = try piped()
      skipSpace()
      guard peek == ")" else { throw unexpected("')'") }
      i += 1
      return try access(e)
    }
    if c == "'" || c == "\"" { return .literal(.string(try quoted()), at: start) }
    if c.isASCII, c.isNumber { return .literal(.number(try number()), at: start) }
    if c == "$" {
      if peek(1) == "{" {
        try enter(at: start)
        defer { nesting -= 1 }
        let ((e, after), counted) = try Self.parseBraced(chars, from: i + 2, nesting: nesting, operators: operators)
        operators = counted
        i = after
        return try access(e)
      }
      i += 1
      return .path(try path(), at: start)
    }
    if c.isLetter || c == "_" {
      switch word() {
      case "true": i += 4; return .literal(.bool(true), at: start)
      case "false": i += 5; return .literal(.bool(false), at: start)
      case "null": i += 4; return .literal(.null, at: start)
      case "and", "or", "not": throw unexpected("a value before '\(word())'")
      default: return .path(try path(), at: start)
      }
    }
    throw unexpected("a value, a $path or '('")
  }

  /// `.name` and `[n]` after a computed value.
  private mutating func access(_ e: Expression) throws(ExpressionError) -> Expression {
    guard peek == "." || peek == "[" else { return e }
    let start = i
    var text = "x"
    while let c = peek, c.isLetter || c.isNumber || "_.[]".contains(c) { text.append(c); i += 1 }
    guard let path = DataPath(text), path.segments.count > 1 else {
      throw ExpressionError(offset: start, message: "malformed member access '\(text.dropFirst())'")
    }
    return .access(e, Array(path.segments.dropFirst()))
  }

  private mutating func formatter() throws(ExpressionError) -> FormatterCall {
    skipSpace()
    let start = i
    var name = ""
    while let c = peek, c.isLetter { name.append(c); i += 1 }
    guard !name.isEmpty else { throw unexpected("a formatter name after '|'") }
    guard let spec = ValueFormatter.specs[name] else {
      throw ExpressionError(
        offset: start, message: unknown("formatter", name, among: ValueFormatter.specs.keys.sorted()))
    }
    var arguments: [FormatterCall.Argument] = []
    while true {
      skipSpace()
      guard peek == ":" else { break }
      i += 1
      guard arguments.count < spec.arguments.upperBound else {
        throw ExpressionError(
          offset: i - 1, message: "\(name) takes at most \(spec.arguments.upperBound) argument(s): \(spec.usage)")
      }
      arguments.append(
        try argument(
          expression: spec.expressionArguments.contains(arguments.count),
          last: arguments.count + 1 == spec.arguments.upperBound))
    }
    guard spec.arguments.contains(arguments.count) else {
      throw ExpressionError(
        offset: start, message: "\(name) needs \(spec.arguments.lowerBound) argument(s): \(spec.usage)")
    }
    return FormatterCall(name: name, arguments: arguments, offset: start)
  }

  /// A quoted string, `$path`, `@key`, or bare text up to the next `:` (up to `|`, `}` or `)`
  /// for a formatter's last argument, so `date:yyyy-MM-dd HH:mm` needs no quotes).
  private mutating func argument(expression: Bool, last: Bool) throws(ExpressionError) -> FormatterCall.Argument {
    skipSpace()
    let start = i
    if let q = peek, q == "'" || q == "\"" {
      let text = try quoted()
      guard expression else { return .text(text, at: start) }
      try enter(at: start)
      defer { nesting -= 1 }
      var inner = ExpressionParser(text, nesting: nesting, operators: operators)
      do throws(ExpressionError) {
        let e = try inner.piped()
        inner.skipSpace()
        if inner.i < inner.chars.count { throw inner.unexpected("an operator or the end") }
        operators = inner.operators
        return .expression(e, at: start + 1)
      } catch {
        throw ExpressionError(offset: start + 1 + error.offset, message: error.message)
      }
    }
    if peek == "$" {
      i += 1
      return .path(try path(), at: start)
    }
    if peek == "@" {
      i += 1
      var key = ""
      while let c = peek, c.isLetter || c.isNumber || "_.-".contains(c) { key.append(c); i += 1 }
      return .key(key, at: start)
    }
    var text = ""
    while let c = peek, c != "|", c != "}", c != ")", last || c != ":" { text.append(c); i += 1 }
    text = text.trimmingCharacters(in: .whitespaces)
    if expression {
      guard let p = DataPath(text) else {
        throw ExpressionError(offset: start, message: "write the expression in quotes: '\(text)'")
      }
      return .expression(.path(p, at: 0), at: start)
    }
    return .text(text, at: start)
  }

  // MARK: - Tokens

  private mutating func path() throws(ExpressionError) -> DataPath {
    let start = i
    var text = ""
    while let c = peek {
      if c.isLetter || c.isNumber || c == "_" || c == "." || c == "[" || c == "]" {
        text.append(c)
      } else if c == "-", let n = peek(1), n.isLetter || n == "_", !text.isEmpty, text.last != "." {
        text.append(c)
      } else {
        break
      }
      i += 1
    }
    guard let path = DataPath(text) else {
      throw ExpressionError(
        offset: start, message: text.isEmpty ? "a name must follow '$'" : "malformed data path '\(text)'")
    }
    return path
  }

  private mutating func number() throws(ExpressionError) -> JSONNumber {
    let start = i
    var text = ""
    while let c = peek, c.isASCII, c.isNumber || c == "." {
      text.append(c)
      i += 1
      if let e = peek, e == "e" || e == "E" {
        let signed = peek(1) == "-" || peek(1) == "+"
        if peek(signed ? 2 : 1)?.isNumber == true {
          text += signed ? String([e, peek(1)!]) : String(e)
          i += signed ? 2 : 1
        }
      }
    }
    guard let n = JSONNumber(literal: text) else {
      throw ExpressionError(offset: start, message: "'\(text)' is not a number (write 0.5, 12, 1e-3)")
    }
    return n
  }

  private mutating func quoted() throws(ExpressionError) -> String {
    let start = i
    let q = chars[i]
    i += 1
    var text = ""
    while let c = peek, c != q { text.append(c); i += 1 }
    guard peek == q else { throw ExpressionError(offset: start, message: "a string opened with \(q) is never closed") }
    i += 1
    return text
  }

  private func peekOperator() -> Expression.BinaryOperator? {
    guard let c = peek else { return nil }
    switch c {
    case "+": return .add
    case "~": return .join
    case "-": return .subtract
    case "*": return .multiply
    case "/": return .divide
    case "=": return peek(1) == "=" ? .equal : nil
    case "!": return peek(1) == "=" ? .notEqual : nil
    case "<": return peek(1) == "=" ? .lessOrEqual : .less
    case ">": return peek(1) == "=" ? .greaterOrEqual : .greater
    default:
      switch word() {
      case "and": return .and
      case "or": return .or
      default: return nil
      }
    }
  }

  /// The run of letters at the cursor.
  private func word() -> String {
    var j = i
    var w = ""
    while j < chars.count, chars[j].isLetter || chars[j] == "_" { w.append(chars[j]); j += 1 }
    if j < chars.count, chars[j].isNumber { return "" }
    return w
  }

  private var peek: Character? { i < chars.count ? chars[i] : nil }
  private func peek(_ n: Int) -> Character? { i + n < chars.count ? chars[i + n] : nil }

  mutating func skipSpace() { while let c = peek, c.isWhitespace { i += 1 } }

  private func unexpected(_ expected: String) -> ExpressionError {
    guard let c = peek else {
      return ExpressionError(offset: i, message: "the expression ends where \(expected) was expected")
    }
    if c == "=" { return ExpressionError(offset: i, message: "'=' alone is not an operator; compare with '=='") }
    if c == "&" || (c == "|" && peek(1) == "|") {
      return ExpressionError(offset: i, message: "use 'and' and 'or' to join conditions")
    }
    return ExpressionError(offset: i, message: "unexpected '\(c)'; expected \(expected)")
  }
}
