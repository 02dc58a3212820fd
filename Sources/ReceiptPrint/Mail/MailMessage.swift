public import Foundation

/// An e-receipt as an Internet message (RFC 5322, MIME RFC 2045–2049): a plain-text body and the
/// receipt's PDF attached, from the shop to the customer. Header values are checked (no line
/// breaks, addresses of one `@`) and non-ASCII subjects and file names are RFC 2047 / RFC 2231
/// encoded, so data from an order can never add a header or a recipient.
public struct MailMessage: Sendable {
  public var from: String
  public var to: String
  public var subject: String
  public var text: String
  public var pdf: Data
  public var fileName: String
  /// Stable for a job (`<job-id@host>`): a transport or a reader can tell a repeat.
  public var messageID: String
  public var date: Date

  /// Creates a message; throws ``MailError/badAddress(_:)`` for an address that is not one.
  public init(
    from: String, to: String, subject: String, text: String, pdf: Data, fileName: String, messageID: String,
    date: Date = Date()
  ) throws {
    for address in [from, to] where !Self.isAddress(address) { throw MailError.badAddress(address) }
    self.from = from
    self.to = to
    self.subject = subject
    self.text = text
    self.pdf = pdf
    self.fileName = fileName
    self.messageID = messageID
    self.date = date
  }

  /// Whether `text` is one plain address (`local@domain`): printable ASCII, no spaces, quotes,
  /// angle brackets, commas or line breaks, one `@` with text on both sides, at most 254 bytes.
  public static func isAddress(_ text: String) -> Bool {
    let bytes = Array(text.utf8)
    guard (3...254).contains(bytes.count), !text.hasPrefix("-") else { return false }
    guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F && !"<>(),;:\"[]\\".utf8.contains($0) }) else { return false }
    let parts = text.split(separator: "@", omittingEmptySubsequences: false)
    return parts.count == 2 && !parts[0].isEmpty && parts[1].contains(".") && !parts[1].hasPrefix(".")
      && !parts[1].hasSuffix(".")
  }

  /// The message's bytes, lines ending in CRLF.
  public var bytes: Data {
    let boundary = "receipt-" + messageID.utf8.map { String(format: "%02x", $0) }.joined().prefix(32)
    var lines = [
      "From: \(from)", "To: \(to)", "Subject: \(Self.encodedWord(subject))", "Date: \(Self.rfc5322Date(date))",
      "Message-ID: <\(messageID)>", "MIME-Version: 1.0", "Content-Type: multipart/mixed; boundary=\"\(boundary)\"",
      "", "--\(boundary)", "Content-Type: text/plain; charset=utf-8", "Content-Transfer-Encoding: base64", "",
    ]
    lines += Self.base64Lines(Data(text.utf8))
    // A file name in ASCII as it is; any other in RFC 2231's form only (readers prefer the plain
    // form when both are given).
    let ascii =
      fileName.unicodeScalars.allSatisfy { $0.isASCII && $0.value >= 0x20 } && Self.asciiName(fileName) == fileName
    let name = ascii ? "=\"\(fileName)\"" : "*=UTF-8''\(Self.percentEncoded(fileName))"
    lines += [
      "--\(boundary)", "Content-Type: application/pdf; name\(name)", "Content-Disposition: attachment; filename\(name)",
      "Content-Transfer-Encoding: base64", "",
    ]
    lines += Self.base64Lines(pdf)
    lines += ["--\(boundary)--", ""]
    return Data(lines.joined(separator: "\r\n").utf8)
  }

  /// Base64 in lines of 76 characters (RFC 2045).
  static func base64Lines(_ data: Data) -> [String] {
    let text = data.base64EncodedString()
    var lines: [String] = []
    var start = text.startIndex
    while start < text.endIndex {
      let end = text.index(start, offsetBy: 76, limitedBy: text.endIndex) ?? text.endIndex
      lines.append(String(text[start..<end]))
      start = end
    }
    return lines
  }

  /// A header text as it is when ASCII without line breaks, else RFC 2047 encoded words
  /// (`=?UTF-8?B?…?=`), each at most 75 characters.
  static func encodedWord(_ text: String) -> String {
    let flat = text.replacingOccurrences(of: "\r", with: " ").replacingOccurrences(of: "\n", with: " ")
    if flat.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return flat }
    var words: [String] = []
    var chunk = ""
    for character in flat {
      if (chunk + String(character)).utf8.count > 45 {
        words.append("=?UTF-8?B?\(Data(chunk.utf8).base64EncodedString())?=")
        chunk = ""
      }
      chunk.append(character)
    }
    if !chunk.isEmpty { words.append("=?UTF-8?B?\(Data(chunk.utf8).base64EncodedString())?=") }
    return words.joined(separator: "\r\n ")
  }

  /// A file name in ASCII for `name=` (others become `_`).
  static func asciiName(_ name: String) -> String {
    String(
      name.unicodeScalars.map {
        $0.isASCII && $0.value >= 0x20 && !"\"\\".unicodeScalars.contains($0) ? Character($0) : "_"
      })
  }

  /// RFC 2231 percent-encoding of a UTF-8 file name.
  static func percentEncoded(_ name: String) -> String {
    name.utf8.map { byte in
      (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || "-._".utf8.contains(byte)
        ? String(UnicodeScalar(byte)) : String(format: "%%%02X", byte)
    }.joined()
  }

  /// `Sun, 29 Nov 2026 08:30:00 +0000`.
  static func rfc5322Date(_ date: Date) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss Z"
    return formatter.string(from: date)
  }
}

/// Why an e-receipt could not be handed to the mail transport.
public enum MailError: Error, Equatable, CustomStringConvertible {
  /// Not one plain e-mail address.
  case badAddress(String)
  /// The transport (`sendmail`) could not be started.
  case transportMissing(String)
  /// The transport refused the message: its exit status (sysexits.h) and what it said.
  case refused(status: Int32, message: String)

  /// Whether trying again later may succeed (`EX_TEMPFAIL`, `EX_UNAVAILABLE`, `EX_OSERR`, a
  /// transport that could not be started) rather than never (a bad address, `EX_NOUSER`,
  /// `EX_DATAERR`).
  public var isTemporary: Bool {
    switch self {
    case .badAddress: false
    case .transportMissing: true
    case .refused(let status, _): ![64, 65, 67, 68].contains(status)
    }
  }

  public var description: String {
    switch self {
    case .badAddress(let address): "'\(address.prefix(80))' is not an e-mail address (local@domain)"
    case .transportMissing(let why): "the mail transport cannot be run: \(why)"
    case .refused(let status, let message):
      "the mail transport refused the message (exit \(status))\(message.isEmpty ? "" : ": \(message.prefix(300))")"
    }
  }
}
