/// An expression of the template language, as in `${item.price * item.quantity | currency}` and
/// `test="$total > 100 and not $paid"`. Offsets are character positions in the string the
/// expression was read from, so errors point at the offending token.
indirect enum Expression: Sendable {
  case literal(JSONValue, at: Int)
  case path(DataPath, at: Int)
  case unary(UnaryOperator, Expression, at: Int)
  case binary(BinaryOperator, Expression, Expression, at: Int)
  /// An expression passed through formatters: `items | sum:'price' | currency`.
  case piped(Expression, [FormatterCall])
  /// Members and indexes of a computed value: `(items | last).price`.
  case access(Expression, [DataPath.Segment])

  enum UnaryOperator: String {
    case minus = "-"
    case not
  }

  enum BinaryOperator: String {
    case add = "+", subtract = "-", multiply = "*", divide = "/"
    /// Joins the texts of its operands: `'No. ' ~ $number`.
    case join = "~"
    case equal = "==", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
    case and, or

    /// Binding strength: higher binds tighter.
    var precedence: Int {
      switch self {
      case .or: return 1
      case .and: return 2
      case .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual: return 3
      case .add, .subtract, .join: return 4
      case .multiply, .divide: return 5
      }
    }

    var isComparison: Bool { precedence == 3 }
  }

  /// Where the expression starts.
  var offset: Int {
    switch self {
    case .literal(_, let at), .path(_, let at), .unary(_, _, let at): return at
    case .binary(_, let lhs, _, _): return lhs.offset
    case .piped(let e, _), .access(let e, _): return e.offset
    }
  }

  /// The expression's data path when it is nothing else (`$total`), for messages.
  var plainPath: DataPath? {
    if case .path(let p, _) = self { return p }
    return nil
  }
}

/// One formatter in a pipe: `name:arg:arg`, with where its name starts.
struct FormatterCall: Sendable {
  var name: String
  var arguments: [Argument]
  var offset: Int

  /// A formatter argument: text as written (`EUR`, `'HH:mm'`), a `$path`, a `@key` of the
  /// strings table, or an expression evaluated per array element (`sum:'price * quantity'`).
  enum Argument {
    case text(String, at: Int)
    case path(DataPath, at: Int)
    case key(String, at: Int)
    case expression(Expression, at: Int)

    var offset: Int {
      switch self {
      case .text(_, let at), .path(_, let at), .key(_, let at), .expression(_, let at): return at
      }
    }

  }
}

/// A parse error at a character offset of the expression's string.
struct ExpressionError: Error {
  var offset: Int
  var message: String
}
