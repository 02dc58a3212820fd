@_spi(Internals) import ReceiptModel

/// The text of a template file, kept so that a token inside an attribute value or a text run can
/// be placed exactly (file:line:column of its first character), entities and CDATA accounted for.
///
/// libxml2 reports where it *is* (after a text run, at the `>` of a start tag); the start of a
/// run and of each attribute value is found from there in the text.
final class SourceText: Sendable {
  let file: String
  /// The lines, without their line feeds.
  private let lines: [[Character]]
  /// Locations already worked out (``Locator``), by where the string starts and the offset in
  /// it: a formatter's location is asked for at every use (its checks take one) and is the same
  /// for every receipt of the template — worked out afresh it was half a percent of a receipt.
  /// Bounded: at most ``maxLocated`` entries (a template has a few hundred places).
  fileprivate let located = Locked<[Locator.Key: SourceLocation]>([:])
  static let maxLocated = 4096

  init(_ text: String, file: String) {
    self.file = file
    lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { Array($0) }
  }

  /// A 0-based position.
  struct Point: Hashable, Sendable {
    var line: Int
    var column: Int
  }

  /// The text of 1-based line `number` (empty past the end).
  func line(_ number: Int) -> String {
    number >= 1 && number <= lines.count ? String(lines[number - 1]) : ""
  }

  func location(_ p: Point) -> SourceLocation { SourceLocation(file: file, line: p.line + 1, column: p.column + 1) }

  private func character(at p: Point) -> Character? {
    guard p.line < lines.count else { return nil }
    if p.column < lines[p.line].count { return lines[p.line][p.column] }
    return p.line + 1 < lines.count ? "\n" : nil
  }

  private func next(_ p: Point) -> Point {
    p.column < lines[p.line].count ? Point(line: p.line, column: p.column + 1) : Point(line: p.line + 1, column: 0)
  }

  private func previous(_ p: Point) -> Point? {
    if p.column > 0 { return Point(line: p.line, column: p.column - 1) }
    return p.line > 0 ? Point(line: p.line - 1, column: lines[p.line - 1].count) : nil
  }

  /// libxml2's 1-based line and column as a point (clamped to the text).
  func point(line: Int, column: Int) -> Point {
    let l = min(max(line - 1, 0), max(lines.count - 1, 0))
    return Point(line: l, column: min(max(column - 1, 0), lines.isEmpty ? 0 : lines[l].count))
  }

  /// Where a run of `count` decoded characters that ends at `end` starts (libxml2 hands over
  /// the first chunk of a run before any entity, so the chunk is the raw text).
  func start(ofRunEndingAt end: Point, count: Int) -> Point {
    var p = end
    for _ in 0..<count {
      guard let q = previous(p) else { break }
      p = q
    }
    return p
  }

  /// The position of the `decoded`-th character of a text run or attribute value that starts
  /// at `start`, stepping over entities (`&lt;` is one character), CDATA markers and comments.
  func point(from start: Point, advancing decoded: Int) -> Point {
    var p = start
    var remaining = decoded
    while remaining > 0, let c = character(at: p) {
      if c == "&" {
        var q = p
        var steps = 0
        while let d = character(at: q), d != ";", steps < 12 {
          q = next(q)
          steps += 1
        }
        p = character(at: q) == ";" ? next(q) : next(p)
      } else if c == "<", let skip = markerLength(at: p) {
        for _ in 0..<skip { p = next(p) }
        continue
      } else if c == "]", hasPrefix("]]>", at: p) {
        for _ in 0..<3 { p = next(p) }
        continue
      } else {
        p = next(p)
      }
      remaining -= 1
    }
    return p
  }

  /// The length of a CDATA opener or a whole comment at `p` (neither is text).
  private func markerLength(at p: Point) -> Int? {
    if hasPrefix("<![CDATA[", at: p) { return 9 }
    guard hasPrefix("<!--", at: p) else { return nil }
    var q = p
    var length = 0
    while character(at: q) != nil {
      if hasPrefix("-->", at: q) { return length + 3 }
      q = next(q)
      length += 1
    }
    return length
  }

  private func hasPrefix(_ s: String, at p: Point) -> Bool {
    var q = p
    for c in s {
      guard character(at: q) == c else { return false }
      q = next(q)
    }
    return true
  }

  /// The start of each attribute's value in the start tag whose end libxml2 reported at `end`
  /// (the tag's `>` or `/`): `<` cannot occur inside a tag, so the tag starts at the last one.
  func attributeValueStarts(ofTagEndingAt end: Point) -> [String: Point] {
    var p = end
    while character(at: p) != "<" {
      guard let q = previous(p) else { return [:] }
      p = q
    }
    var starts: [String: Point] = [:]
    p = next(p)
    while let c = character(at: p), c != ">", !c.isWhitespace { p = next(p) }  // the element name
    while true {
      while let c = character(at: p), c.isWhitespace { p = next(p) }
      var name = ""
      while let c = character(at: p), !c.isWhitespace, c != "=", c != ">", c != "/" {
        name.append(c)
        p = next(p)
      }
      guard !name.isEmpty else { return starts }
      while let c = character(at: p), c.isWhitespace { p = next(p) }
      guard character(at: p) == "=" else { return starts }
      p = next(p)
      while let c = character(at: p), c.isWhitespace { p = next(p) }
      guard let quote = character(at: p), quote == "\"" || quote == "'" else { return starts }
      p = next(p)
      starts[name] = p
      while let c = character(at: p), c != quote { p = next(p) }
      guard character(at: p) != nil else { return starts }
      p = next(p)
    }
  }
}

/// Turns an offset in a string taken from a template (a text run, an attribute value) into the
/// file:line:column of that character. Strings from elsewhere (a style sheet) point at the element.
/// Where the string starts in the file is worked out only when a location is asked for (an error
/// or a warning), so binding a template costs nothing for it.
struct Locator {
  /// Where the string starts, as libxml2 left it.
  enum Anchor: Hashable {
    /// The start itself.
    case point(SourceText.Point)
    /// The value of `name` in the start tag that ends at `tagEnd`.
    case attribute(tagEnd: SourceText.Point, name: String)
    /// A run of `count` characters ending at `end`.
    case run(end: SourceText.Point, count: Int)
  }

  var source: SourceText?
  var anchor: Anchor
  /// Characters from the anchor's start to the string's.
  var shift = 0
  /// Where the string as a whole is reported when it has no place in the file.
  var fallback: SourceLocation

  init(source: SourceText, anchor: Anchor, fallback: SourceLocation) {
    self.source = source
    self.anchor = anchor
    self.fallback = fallback
  }

  init(_ location: SourceLocation) {
    source = nil
    anchor = .point(SourceText.Point(line: 0, column: 0))
    fallback = location
  }

  /// A character's place: the string's anchor and the character's offset from it.
  struct Key: Hashable {
    let anchor: Anchor
    let offset: Int
  }

  /// The location of the character at `offset` (counted in characters).
  func callAsFunction(_ offset: Int) -> SourceLocation {
    guard let source else { return fallback }
    let key = Key(anchor: anchor, offset: shift + offset)
    if let known = source.located.withLock({ $0[key] }) { return known }
    let start: SourceText.Point
    switch anchor {
    case .point(let p): start = p
    case .run(let end, let count): start = source.start(ofRunEndingAt: end, count: count)
    case .attribute(let tagEnd, let name):
      guard let p = source.attributeValueStarts(ofTagEndingAt: tagEnd)[name] else { return fallback }
      start = p
    }
    let location = source.location(source.point(from: start, advancing: key.offset))
    source.located.withLock { located in
      if located.count < SourceText.maxLocated { located[key] = location }
    }
    return location
  }

  /// A locator for the part of the string that starts at `offset`.
  func shifted(by offset: Int) -> Locator {
    var l = self
    l.shift += offset
    return l
  }
}
