import Foundation

/// Templates reach the XML parser as UTF-8, whatever they were saved in. The encoding is found
/// as the XML specification (appendix F) says — byte order mark, then the first bytes, then the
/// `encoding` declaration — and only UTF-8 and UTF-16 are accepted; UTF-16 is converted. The
/// parser then sees exactly the bytes that were checked for a DTD: without this, `<!DOCTYPE`
/// in UTF-16 slipped past a byte scan for the UTF-8 spelling and its entities expanded.
enum XMLEncoding {
  /// The template as UTF-8 bytes (without a byte order mark, declaring UTF-8 if it declared
  /// anything), or an error saying how to convert it.
  static func utf8(_ data: Data, file: String) throws -> Data {
    let bytes = [UInt8](data.prefix(4))
    func unsupported(_ name: String) -> TemplateError {
      TemplateError(
        file: file, line: 1, column: 1,
        message: "the template is \(name); save it as UTF-8 (e.g. iconv -t UTF-8 \(file) > new.xml)")
    }
    if bytes.starts(with: [0x00, 0x00, 0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE, 0x00, 0x00])
      || bytes.starts(with: [0x00, 0x00, 0x00, 0x3C]) || bytes.starts(with: [0x3C, 0x00, 0x00, 0x00])
    {
      throw unsupported("UTF-32")
    }
    if bytes.starts(with: [0x4C, 0x6F, 0xA7, 0x94]) { throw unsupported("EBCDIC") }
    let text: String
    if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0x3C, 0x00, 0x3F, 0x00]) {
      text = try decodeUTF16(data, bigEndian: false, file: file)
    } else if bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0x00, 0x3C, 0x00, 0x3F]) {
      text = try decodeUTF16(data, bigEndian: true, file: file)
    } else {
      var body = data
      if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { body = data.dropFirst(3) }
      guard let decoded = String(validating: body, as: UTF8.self) else {
        throw TemplateError(file: file, message: "the template is not valid UTF-8; save it as UTF-8")
      }
      if let declared = declaredEncoding(decoded),
        !["utf-8", "utf8", "us-ascii", "ascii"].contains(declared.lowercased())
      {
        throw unsupported("declared as \(declared)")
      }
      return Data(body)
    }
    return Data(declaringUTF8(text).utf8)
  }

  private static func decodeUTF16(_ data: Data, bigEndian: Bool, file: String) throws -> String {
    var body = data
    if body.starts(with: bigEndian ? [0xFE, 0xFF] : [0xFF, 0xFE]) { body = body.dropFirst(2) }
    guard body.count % 2 == 0,
      let text = String(data: Data(body), encoding: bigEndian ? .utf16BigEndian : .utf16LittleEndian)
    else { throw TemplateError(file: file, message: "the template is not valid UTF-16; save it as UTF-8") }
    return text
  }

  /// The `encoding` of the XML declaration, if there is one.
  static func declaredEncoding(_ text: String) -> String? {
    guard text.hasPrefix("<?xml"), let end = text.range(of: "?>") else { return nil }
    let declaration = text[..<end.lowerBound]
    guard let key = declaration.range(of: "encoding") else { return nil }
    let rest = declaration[key.upperBound...].drop { $0 == " " || $0 == "=" }
    guard let quote = rest.first, quote == "\"" || quote == "'" else { return nil }
    return String(rest.dropFirst().prefix { $0 != quote })
  }

  /// The text with its XML declaration's encoding set to UTF-8.
  private static func declaringUTF8(_ text: String) -> String {
    guard let declared = declaredEncoding(text), let end = text.range(of: "?>") else { return text }
    var declaration = String(text[..<end.lowerBound])
    for quote in ["\"", "'"] {
      declaration = declaration.replacingOccurrences(of: quote + declared + quote, with: quote + "UTF-8" + quote)
    }
    return declaration + text[end.lowerBound...]
  }

  /// `<?target?>` becomes `<?target ?>` (outside comments and CDATA): libxml2 reports a
  /// processing instruction without data with a NULL pointer, on which corelibs Foundation's
  /// XMLParser calls strlen and the process dies (found by `make fuzz`). With a space, the data
  /// is empty instead. Nothing else changes.
  static func spacingEmptyInstructions(_ data: Data) -> Data {
    let bytes = [UInt8](data)
    let lt = UInt8(ascii: "<"), question = UInt8(ascii: "?"), gt = UInt8(ascii: ">")
    func starts(_ prefix: StaticString, at i: Int) -> Bool {
      let count = prefix.utf8CodeUnitCount
      guard i + count <= bytes.count else { return false }
      return (0..<count).allSatisfy { bytes[i + $0] == prefix.utf8Start[$0] }
    }
    /// The index after the first `end` at or after `i` (the end of the input if there is none).
    func skip(to end: StaticString, from i: Int) -> Int {
      var j = i
      while j < bytes.count, !(bytes[j] == end.utf8Start[0] && starts(end, at: j)) { j += 1 }
      return min(bytes.count, j + end.utf8CodeUnitCount)
    }
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count + 8)
    var i = 0
    while i < bytes.count {
      guard bytes[i] == lt, i + 1 < bytes.count else {
        out.append(bytes[i])
        i += 1
        continue
      }
      if starts("<!--", at: i) {
        let end = skip(to: "-->", from: i + 4)
        out += bytes[i..<end]
        i = end
      } else if starts("<![CDATA[", at: i) {
        let end = skip(to: "]]>", from: i + 9)
        out += bytes[i..<end]
        i = end
      } else if bytes[i + 1] == question {
        var j = i + 2
        while j < bytes.count, ![0x20, 0x09, 0x0A, 0x0D, question, gt].contains(bytes[j]) { j += 1 }
        out += bytes[i..<j]
        if j + 1 < bytes.count, bytes[j] == question, bytes[j + 1] == gt { out.append(0x20) }
        // The body is data up to the first `?>`, as libxml2 reads it: a `<!--` or `<?` inside
        // it starts nothing, so it must not hide a following `<?x?>` from this scan.
        let end = skip(to: "?>", from: j)
        out += bytes[j..<end]
        i = end
      } else {
        out.append(bytes[i])
        i += 1
      }
    }
    return out.count == bytes.count ? data : Data(out)
  }
}
