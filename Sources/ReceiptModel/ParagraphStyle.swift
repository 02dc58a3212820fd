/// Horizontal alignment of lines in a paragraph, or of a block in its cell.
public enum TextAlignment: String, Hashable, Sendable, CaseIterable {
  /// Left in left-to-right text, right in right-to-left text.
  case leading
  case center
  /// Right in left-to-right text, left in right-to-left text.
  case trailing
  /// Both edges; the last line of a paragraph is leading-aligned.
  case justified
  /// Always left.
  case left
  /// Always right.
  case right
}

/// The base (paragraph) direction for the Unicode bidirectional algorithm.
public enum BaseDirection: String, Hashable, Sendable, CaseIterable {
  /// From the first strong character of each paragraph (left-to-right when there is none).
  case auto
  case leftToRight = "ltr"
  case rightToLeft = "rtl"
}

/// What happens when a line is too long.
public enum LineBreakMode: String, Hashable, Sendable, CaseIterable {
  /// Wrap at word boundaries (UAX #14); a word longer than the line wraps between graphemes.
  case word
  /// Wrap between any two graphemes.
  case char
  /// One line per paragraph, cut with an ellipsis.
  case truncate
}

/// A tab stop, measured from the leading edge of the text's box.
public struct TabStop: Hashable, Sendable {
  public enum Alignment: String, Hashable, Sendable, CaseIterable {
    /// Text after the tab starts at the stop.
    case left
    /// Text after the tab ends at the stop.
    case right
    /// Text after the tab is centred on the stop.
    case center
    /// The decimal separator of the text after the tab sits at the stop.
    case decimal
  }
  /// Distance from the leading edge of the box, in points. Negative values count from the trailing edge.
  public var location: Double
  public var alignment: Alignment
  /// A character repeated to fill the tab's space, such as `.` for "Total ....... 9.99".
  public var leader: Character?

  /// Creates a tab stop.
  public init(location: Double, alignment: Alignment = .left, leader: Character? = nil) {
    self.location = location
    self.alignment = alignment
    self.leader = leader
  }
}

/// How words are hyphenated where a line ends (CSS `hyphens`).
public enum Hyphenation: String, Hashable, Sendable, CaseIterable {
  /// Words break at the hyphenation points of the text's language (a dictionary) and at soft
  /// hyphens (U+00AD); the line ends with a hyphen.
  case auto
  /// Words break only at soft hyphens; the line ends with a hyphen.
  case manual
  /// Words never break at soft hyphens or dictionary points (only a word wider than the line is
  /// split, between characters).
  case none
}

/// Paragraph-level layout of a text block.
public struct ParagraphStyle: Hashable, Sendable {
  public var alignment: TextAlignment
  /// Extra space between the lines of a paragraph, in points.
  public var lineSpacing: Double
  /// Extra space after each paragraph (not after the last one), in points.
  public var paragraphSpacing: Double
  /// Indent of every line from the leading edge, in points (the first line of each paragraph
  /// takes ``firstLineHeadIndent`` instead when that is set).
  public var headIndent: Double
  /// Indent of each paragraph's first line from the leading edge, in points, as
  /// `NSParagraphStyle.firstLineHeadIndent`; nil is ``headIndent``. Smaller than the head
  /// indent, it makes a hanging indent (wrapped lines under the text, not under a "+ ").
  public var firstLineHeadIndent: Double?
  /// Indent from the trailing edge, in points.
  public var tailIndent: Double
  public var tabStops: [TabStop]
  /// Spacing of the implicit left tab stops after the last explicit one.
  public var defaultTabInterval: Double
  public var lineBreakMode: LineBreakMode
  /// The most lines the text may take (0 = no limit); the last kept line ends with an ellipsis.
  public var maxLines: Int
  public var baseDirection: BaseDirection
  /// The least space between text and the text after a tab, in points; nil is one space of the
  /// tab's font. Text after a tab that cannot keep it moves to the next line, at its stop.
  public var tabGap: Double?

  /// The indent of a paragraph's first line (``firstLineHeadIndent``, else ``headIndent``).
  public var firstLineIndent: Double { firstLineHeadIndent ?? headIndent }
  /// Whether words are hyphenated at line ends.
  public var hyphenation: Hyphenation

  /// Creates a paragraph style; every parameter has the plain default.
  public init(
    alignment: TextAlignment = .leading, lineSpacing: Double = 0, paragraphSpacing: Double = 0,
    headIndent: Double = 0, firstLineHeadIndent: Double? = nil, tailIndent: Double = 0, tabStops: [TabStop] = [],
    defaultTabInterval: Double = 36, lineBreakMode: LineBreakMode = .word, maxLines: Int = 0,
    baseDirection: BaseDirection = .auto, tabGap: Double? = nil, hyphenation: Hyphenation = .manual
  ) {
    self.alignment = alignment
    self.lineSpacing = lineSpacing
    self.paragraphSpacing = paragraphSpacing
    self.headIndent = headIndent
    self.firstLineHeadIndent = firstLineHeadIndent
    self.tailIndent = tailIndent
    self.tabStops = tabStops
    self.defaultTabInterval = defaultTabInterval
    self.lineBreakMode = lineBreakMode
    self.maxLines = maxLines
    self.baseDirection = baseDirection
    self.tabGap = tabGap
    self.hyphenation = hyphenation
  }

  /// A copy with changes applied.
  public func with(_ change: (inout ParagraphStyle) -> Void) -> ParagraphStyle {
    var copy = self
    change(&copy)
    return copy
  }
}
