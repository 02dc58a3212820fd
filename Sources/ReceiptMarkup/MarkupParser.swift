import Foundation

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// Parses template XML with Foundation's XMLParser (libxml2), safely: the template is first
/// brought to UTF-8 (``XMLEncoding``), documents with a DTD or entity declarations are refused
/// (no external entities, no entity expansion), any declaration the parser reports still aborts
/// it, and size and nesting depth are limited.
enum MarkupParser {
  /// Largest template file.
  static let maxBytes = 1 << 20
  /// Deepest element nesting.
  static let maxDepth = 64

  static func parse(_ data: Data, file: String) throws -> MarkupDocument {
    guard data.count <= maxBytes else {
      throw TemplateError(file: file, message: "template is \(data.count) bytes; the limit is \(maxBytes)")
    }
    let data = XMLEncoding.spacingEmptyInstructions(try XMLEncoding.utf8(data, file: file))
    try refuseDeclarations(data, file: file)
    let delegate = Delegate(source: SourceText(String(decoding: data, as: UTF8.self), file: file))
    let parser = XMLParser(data: data)
    parser.shouldResolveExternalEntities = false
    parser.shouldProcessNamespaces = false
    parser.delegate = delegate
    delegate.parser = parser
    let ok = parser.parse()
    if let error = delegate.error { throw error }
    guard ok, let root = delegate.root else {
      let e = parser.parserError as NSError?
      throw explain(
        code: e?.code ?? -1, libxml: e?.userInfo[NSLocalizedDescriptionKey] as? String,
        at: SourceLocation(file: file, line: parser.lineNumber, column: parser.columnNumber), open: delegate.stack,
        source: delegate.source)
    }
    root.prepareTexts()
    return MarkupDocument(root: root, instructions: delegate.instructions, file: file)
  }

  /// DTDs are refused outright: they are how external entities (XXE) and entity bombs
  /// (billion laughs) get in, and templates never need them. The bytes are UTF-8 here, the
  /// only spelling the parser will read, so the scan sees what the parser would.
  private static func refuseDeclarations(_ data: Data, file: String) throws {
    let bytes = [UInt8](data)
    for marker in ["<!DOCTYPE", "<!ENTITY"] {
      let pattern = Array(marker.utf8)
      var i = 0
      while i + pattern.count <= bytes.count {
        if zip(bytes[i..<(i + pattern.count)], pattern).allSatisfy({ $0.uppercased == $1 }) {
          let before = bytes[..<i]
          let line = before.filter { $0 == 0x0A }.count + 1
          let column = i - (before.lastIndex(of: 0x0A).map { $0 + 1 } ?? 0) + 1
          throw TemplateError(
            file: file, line: line, column: column,
            message: "\(marker) is not allowed: templates cannot declare a DTD or entities; remove it")
        }
        i += 1
      }
    }
  }

  private final class Delegate: NSObject, XMLParserDelegate {
    let file: String
    let source: SourceText
    weak var parser: XMLParser?
    var root: MarkupNode?
    var stack: [MarkupNode] = []
    var instructions: [ProcessingInstruction] = []
    var error: TemplateError?

    init(source: SourceText) {
      self.source = source
      file = source.file
    }

    var location: SourceLocation {
      SourceLocation(file: file, line: parser?.lineNumber ?? 0, column: parser?.columnNumber ?? 0)
    }

    func parser(
      _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
      attributes: [String: String]
    ) {
      guard stack.count < MarkupParser.maxDepth else {
        fail(TemplateError(location, "elements nest deeper than \(MarkupParser.maxDepth) levels"))
        return
      }
      let node = MarkupNode(
        name: name, attributes: attributes, location: location, source: source,
        tagEnd: source.point(line: parser.lineNumber, column: parser.columnNumber))
      if let parent = stack.last { parent.children.append(.element(node)) } else { root = node }
      stack.append(node)
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
      // libxml2 (as Foundation drives it) recovers from mismatched tags; a template must not.
      guard let open = stack.popLast(), open.name == name else {
        let opened = stack.last.map { " (<\($0.name)> is open since \($0.location))" } ?? ""
        fail(TemplateError(location, "</\(name)> does not close the open element\(opened); close tags in order"))
        return
      }
    }

    func parserDidEndDocument(_ parser: XMLParser) {
      if let open = stack.last {
        fail(TemplateError(open.location, "<\(open.name)> is never closed; add </\(open.name)>"))
      }
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
      let error = parseError as NSError
      fail(
        MarkupParser.explain(
          code: error.code, libxml: error.userInfo[NSLocalizedDescriptionKey] as? String, at: location, open: stack,
          source: source))
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { appendText(string) }

    func parser(_ parser: XMLParser, foundCDATA block: Data) { appendText(String(decoding: block, as: UTF8.self)) }

    /// libxml2 delivers character data in chunks (it splits at entities and buffer ends): join
    /// them so a binding is never cut in two; the location is where the text starts.
    private func appendText(_ string: String) {
      guard let node = stack.last else { return }
      if case .text(let previous, let start)? = node.children.last {
        node.children[node.children.count - 1] = .text(previous + string, start)
      } else {
        let end = source.point(line: parser?.lineNumber ?? 0, column: parser?.columnNumber ?? 0)
        node.children.append(
          .text(string, Locator(source: source, anchor: .run(end: end, count: string.count), fallback: location)))
      }
    }

    // Declarations cannot pass the scan above; should one reach the parser, it stops it.
    func parser(_ parser: XMLParser, foundElementDeclarationWithName elementName: String, model: String) {
      refuseDeclaration()
    }

    func parser(
      _ parser: XMLParser, foundAttributeDeclarationWithName attributeName: String, forElement elementName: String,
      type: String?, defaultValue: String?
    ) { refuseDeclaration() }

    func parser(_ parser: XMLParser, foundInternalEntityDeclarationWithName name: String, value: String?) {
      refuseDeclaration()
    }

    func parser(
      _ parser: XMLParser, foundExternalEntityDeclarationWithName name: String, publicID: String?, systemID: String?
    ) { refuseDeclaration() }

    func parser(
      _ parser: XMLParser, foundUnparsedEntityDeclarationWithName name: String, publicID: String?, systemID: String?,
      notationName: String?
    ) { refuseDeclaration() }

    func parser(
      _ parser: XMLParser, foundNotationDeclarationWithName name: String, publicID: String?, systemID: String?
    ) { refuseDeclaration() }

    func parser(_ parser: XMLParser, resolveExternalEntityName name: String, systemID: String?) -> Data? {
      fail(MarkupParser.undeclared("&\(name)", at: location))
      return nil
    }

    private func refuseDeclaration() {
      fail(TemplateError(location, "DTD declarations are not allowed: templates cannot declare a DTD or entities"))
    }

    func parser(_ parser: XMLParser, foundProcessingInstructionWithTarget target: String, data: String?) {
      instructions.append(ProcessingInstruction(target: target, data: data ?? "", location: location))
    }

    func fail(_ e: TemplateError) {
      if error == nil { error = e }
      parser?.abortParsing()
    }
  }
}

extension UInt8 {
  fileprivate var uppercased: UInt8 { (0x61...0x7A).contains(self) ? self - 0x20 : self }
}
