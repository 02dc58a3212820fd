/// A string with attribute runs and one paragraph style, like `NSAttributedString`.
///
/// Runs are stored by UTF-16 offset, the unit of ICU and of HarfBuzz clusters; build it with
/// ``append(_:_:)`` and never deal with offsets. Paragraphs are separated by `\n`.
public struct AttributedText: Hashable, Sendable {
  /// One run: a UTF-16 range of ``string`` and its attributes.
  public struct Run: Hashable, Sendable {
    public var range: Range<Int>
    public var attributes: TextAttributes
  }

  /// The text.
  public private(set) var string: String
  /// Attribute runs covering ``string`` without gaps, in order.
  public private(set) var runs: [Run]
  /// How paragraphs are laid out.
  public var paragraphStyle: ParagraphStyle

  /// Creates text with one set of attributes.
  public init(
    _ string: String = "", attributes: TextAttributes = TextAttributes(),
    paragraphStyle: ParagraphStyle = ParagraphStyle()
  ) {
    self.string = ""
    self.runs = []
    self.paragraphStyle = paragraphStyle
    append(string, attributes)
  }

  /// Whether two texts are the same byte for byte (``ExactText``), with the same runs and
  /// paragraph style: what tables of laid-out text must compare, where `==` goes by `String`'s
  /// canonical equivalence ("Å" as U+212B equals U+00C5).
  package func isExactly(_ other: AttributedText) -> Bool {
    ExactText.sameBytes(string, other.string) && runs == other.runs && paragraphStyle == other.paragraphStyle
  }

  /// The length in UTF-16 code units.
  public var utf16Count: Int { runs.last?.range.upperBound ?? 0 }

  /// Appends text with attributes, merging with the last run when the attributes are equal.
  public mutating func append(_ text: String, _ attributes: TextAttributes) {
    let count = text.utf16.count
    guard count > 0 else {
      if runs.isEmpty { runs.append(Run(range: 0..<0, attributes: attributes)) }
      return
    }
    let start = utf16Count
    string += text
    if let last = runs.last, last.attributes == attributes || last.range.isEmpty {
      runs[runs.count - 1] = Run(range: last.range.lowerBound..<(start + count), attributes: attributes)
    } else {
      runs.append(Run(range: start..<(start + count), attributes: attributes))
    }
  }

  /// Appends another attributed text (its paragraph style is ignored).
  public mutating func append(_ other: AttributedText) {
    let string = Array(other.string.utf16)
    for run in other.runs where !run.range.isEmpty {
      append(String(decoding: string[run.range], as: UTF16.self), run.attributes)
    }
  }

  /// The attributes at a UTF-16 offset (the last run's past the end; defaults when empty).
  public func attributes(at offset: Int) -> TextAttributes {
    runs.first { $0.range.contains(offset) }?.attributes ?? runs.last?.attributes ?? TextAttributes()
  }
}
