import Foundation

/// libxml2's parse errors said in words: which element is not closed and where it was opened,
/// what the character is and how to write it — never the library's error number.
extension MarkupParser {
  /// HTML's named characters templates reach for most, with how XML writes them.
  static let htmlEntities: [String: (String, String)] = [
    "nbsp": ("&#160;", "a no-break space"), "euro": ("&#8364;", "€"), "copy": ("&#169;", "©"),
    "reg": ("&#174;", "®"), "trade": ("&#8482;", "™"), "mdash": ("&#8212;", "—"), "ndash": ("&#8211;", "–"),
    "hellip": ("&#8230;", "…"), "laquo": ("&#171;", "«"), "raquo": ("&#187;", "»"), "deg": ("&#176;", "°"),
    "times": ("&#215;", "×"), "middot": ("&#183;", "·"), "bull": ("&#8226;", "•"), "shy": ("&#173;", "a soft hyphen"),
    "thinsp": ("&#8201;", "a thin space"), "narrownbsp": ("&#8239;", "a narrow no-break space"),
    "pound": ("&#163;", "£"), "yen": ("&#165;", "¥"), "cent": ("&#162;", "¢"), "sect": ("&#167;", "§"),
    "frac12": ("&#189;", "½"), "auml": ("&#228;", "ä"), "ouml": ("&#246;", "ö"), "uuml": ("&#252;", "ü"),
    "szlig": ("&#223;", "ß"), "eacute": ("&#233;", "é"), "egrave": ("&#232;", "è"), "agrave": ("&#224;", "à"),
    "ccedil": ("&#231;", "ç"),
  ]

  /// What went wrong, for people: from libxml2's error code, the element stack open at the
  /// error, and the template's text around it.
  static func explain(
    code: Int, libxml: String?, at location: SourceLocation, open: [MarkupNode], source: SourceText
  ) -> TemplateError {
    let line = source.line(location.line)
    let column = max(0, location.column - 1)
    let before = String(line.prefix(column))
    func at(_ message: String) -> TemplateError { TemplateError(location, message) }
    switch code {
    case 76:  // XML_ERR_TAG_NAME_MISMATCH
      let closing =
        before.range(of: "</", options: .backwards).map { String(before[$0.upperBound...]) }
        .map { $0.prefix { $0 != ">" && !$0.isWhitespace } } ?? ""
      guard let inner = open.last else { return at("</\(closing)> closes no open element; remove it") }
      return at(
        "</\(closing)> does not close <\(inner.name)>, which is open since line \(inner.location.line) "
          + "(\(inner.location)); add </\(inner.name)> before it")
    case 5, 77, 74:  // XML_ERR_DOCUMENT_END, XML_ERR_TAG_NOT_FINISHED, XML_ERR_LTSLASH_REQUIRED
      if let inner = open.last {
        return TemplateError(
          inner.location,
          "<\(inner.name)> is never closed (it is open since line \(inner.location.line) when the template ends); "
            + "add </\(inner.name)>")
      }
      return at(
        "there is text or another element after the root element; a template has one <receipt> around everything")
    case 38:  // XML_ERR_LT_IN_ATTRIBUTE
      return at("'<' inside an attribute value; write it as &lt; (test=\"$total &lt; 10\")")
    case 68, 23:  // XML_ERR_NAME_REQUIRED, XML_ERR_ENTITYREF_SEMICOL_MISSING
      return at("a bare '&'; write it as &amp; (\"Fish &amp; Chips\"), or end a character reference with ';'")
    case 26, 27:  // XML_ERR_UNDECLARED_ENTITY, XML_WAR_UNDECLARED_ENTITY
      return undeclared(before, at: location)
    case 41:  // XML_ERR_ATTRIBUTE_WITHOUT_VALUE
      let name = before.split(whereSeparator: { $0.isWhitespace }).last.map(String.init) ?? "the attribute"
      return at("attribute \(name) has no value; write \(name)=\"…\" (\(name)=\"true\" for a switch)")
    case 39, 40:  // XML_ERR_ATTRIBUTE_NOT_STARTED, XML_ERR_ATTRIBUTE_NOT_FINISHED
      return at("an attribute value must be in quotes: font=\"DejaVu Sans 10\"")
    case 73:  // XML_ERR_GT_REQUIRED
      return at("a tag is not finished: '>' is missing before this point")
    case 9:  // XML_ERR_INVALID_CHAR
      return at("a character XML does not allow (a control character?); remove it, or write &#NNNN; for a character")
    case 4:  // XML_ERR_DOCUMENT_EMPTY
      return at("the template is empty; it needs a <receipt> element")
    default:
      let said = libxml.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? "the XML is malformed"
      return at("\(said); check that every tag is closed and & is written &amp;")
    }
  }

  /// An HTML entity (`&nbsp;`) XML does not know, with how to write it.
  static func undeclared(_ before: String, at location: SourceLocation) -> TemplateError {
    let name =
      before.range(of: "&", options: .backwards).map { String(before[$0.upperBound...]) }?
      .prefix { $0 != ";" }.description ?? ""
    if let (reference, what) = htmlEntities[name] {
      return TemplateError(
        location, "&\(name); is HTML, not XML; write \(reference) (\(what)), or the character itself")
    }
    return TemplateError(
      location, "&\(name); is not an XML entity; write the character itself, &#NNNN; (its code point), or & as &amp;")
  }
}
