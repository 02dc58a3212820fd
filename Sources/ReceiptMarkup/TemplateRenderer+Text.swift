import Foundation
import ReceiptModel

extension TemplateRenderer {
  /// A `<text>` element: inline spans, `<br/>`, `<tab/>`, bindings and `@key` strings. White
  /// space collapses as in HTML (runs become one space, none at line starts and ends); bound
  /// values are inserted as they are.
  func text(_ node: MarkupNode, scope: Scope, style: InheritedStyle) throws -> AttributedText {
    var builder = TextBuilder()
    try inline(node, scope: scope, attributes: style.text, into: &builder)
    var text = AttributedText("", attributes: style.text, paragraphStyle: style.paragraph)
    for (string, attributes) in builder.finished() { text.append(string, attributes) }
    return text
  }

  private func inline(
    _ node: MarkupNode, scope: Scope, attributes: TextAttributes, into builder: inout TextBuilder
  ) throws {
    for (index, child) in node.children.enumerated() {
      switch child {
      case .text(_, let locator):
        // MarkupParser, which makes every node, prepares its texts.
        for part in try node.textParts[index]?.get() ?? [] {
          switch part {
          case .literal(let s): builder.appendCollapsing(strings.localize(s), attributes)
          case .binding(let b):
            builder.appendVerbatim(try value(of: b, scope: scope, at: locator, isolate: true), attributes)
          }
        }
      case .element(let e):
        guard let allowed = e.inlineAttributes else {
          if [.repeat, .if, .elseif, .else].contains(e.kind) {
            throw TemplateError(e.location, "<\(e.name)> inside <text> is not supported; put it around the <text>")
          }
          throw TemplateError(
            e.location,
            unknown("inline element", "<\(e.name)>", among: Vocabulary.inline.keys.map { "<\($0)>" }) + " in <text>")
        }
        let a = try self.attributes(of: e, allowed: allowed, scope: scope)
        var inner = attributes
        switch e.kind {
        case .br:
          builder.lineBreak(attributes)
          continue
        case .tab:
          builder.tab(attributes)
          continue
        case .b: inner.font.weight = 700
        case .i: inner.font.italic = true
        case .u: inner.underline = true
        case .s: inner.strikethrough = true
        case .inverse: inner.inverse = true
        default: break
        }
        try apply(a, to: &inner)
        try inline(e, scope: scope, attributes: inner, into: &builder)
      }
    }
  }
}

/// Accumulates styled text with HTML-like white-space collapsing: runs of ASCII white space
/// (space, tab, line feed, form feed, carriage return — HTML's definition) become one space; a
/// no-break space (U+00A0, U+202F, U+2007, U+2060 …) is text and stays as it is, so it keeps
/// its neighbours together ("«&#160;NOEL10&#160;»", "100&#160;g").
struct TextBuilder {
  /// HTML's ASCII white space: what collapses.
  static func collapses(_ c: Character) -> Bool {
    // By its ASCII value ("\r\n" has LF's): comparing with each of the six characters was a
    // string comparison each, for every character of every non-ASCII literal.
    guard let v = c.asciiValue else { return false }
    return collapsesByte(v)
  }

  /// Whether a byte is one of HTML's ASCII white-space characters (space, tab, line feed,
  /// carriage return, form feed); no other character has such a byte in UTF-8.
  @inline(__always) static func collapsesByte(_ b: UInt8) -> Bool {
    b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D || b == 0x0C
  }

  /// Whether text is all white space that collapses (the indentation between elements): the
  /// same answer as testing each character with ``collapses(_:)``, read from the UTF-8 bytes — a
  /// string of those bytes has no other characters ("\r\n" is one), and any other character has
  /// another byte. Iterating characters made a string of each: 2 % of a receipt's instructions.
  static func isCollapsible(_ text: String) -> Bool {
    text.utf8.allSatisfy(collapsesByte)
  }

  private var segments: [(String, TextAttributes)] = []
  private var lastWasSpace = true

  mutating func appendCollapsing(_ s: String, _ attributes: TextAttributes) {
    // ASCII (a template's indentation between elements, most labels) a byte at a time: there
    // every byte is a character, and "\r\n" is two white-space bytes that collapse as the one
    // character would. Anything else by characters, where a space with a combining mark on it
    // is a letter, not white space.
    if s.utf8.allSatisfy({ $0 < 0x80 }) {
      var bytes: [UInt8] = []
      bytes.reserveCapacity(s.utf8.count)
      for b in s.utf8 {
        if Self.collapsesByte(b) {
          if !lastWasSpace { bytes.append(0x20) }
          lastWasSpace = true
        } else {
          bytes.append(b)
          lastWasSpace = false
        }
      }
      append(String(decoding: bytes, as: UTF8.self), attributes)
      return
    }
    var out = ""
    for c in s {
      if Self.collapses(c) {
        if !lastWasSpace { out.append(" ") }
        lastWasSpace = true
      } else {
        out.append(c)
        lastWasSpace = false
      }
    }
    append(out, attributes)
  }

  mutating func appendVerbatim(_ s: String, _ attributes: TextAttributes) {
    guard !s.isEmpty else { return }
    append(s, attributes)
    // A text whose last byte is not white space does not end in a white-space character (the
    // usual case, found without finding the last character).
    guard let byte = s.utf8.last, Self.collapsesByte(byte) else {
      lastWasSpace = false
      return
    }
    lastWasSpace = s.last.map(Self.collapses) ?? false
  }

  mutating func lineBreak(_ attributes: TextAttributes) {
    dropTrailingSpace()
    append("\n", attributes)
    lastWasSpace = true
  }

  mutating func tab(_ attributes: TextAttributes) {
    dropTrailingSpace()
    append("\t", attributes)
    lastWasSpace = true
  }

  mutating func finished() -> [(String, TextAttributes)] {
    dropTrailingSpace()
    return segments
  }

  private mutating func append(_ s: String, _ attributes: TextAttributes) {
    guard !s.isEmpty else { return }
    segments.append((s, attributes))
  }

  private mutating func dropTrailingSpace() {
    // A segment whose last byte is not a space cannot end in the character " " (most do not:
    // finding the last character is a grapheme break search, for every text of a receipt);
    // one whose last byte is may still not ("\u{600} " is one character), so that is asked.
    while let last = segments.last, last.0.utf8.last == 0x20, last.0.last == " " {
      let trimmed = String(last.0.dropLast())
      if trimmed.isEmpty { segments.removeLast() } else { segments[segments.count - 1].0 = trimmed }
    }
  }
}
