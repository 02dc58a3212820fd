import Foundation
import ReceiptPrint
import ReceiptTestSupport
import Testing

/// E-receipt messages as a mail reader sees them: Python's `email` package (an independent MIME
/// parser, with the strict `default` policy) reads the headers, the non-ASCII subject and file
/// name, the text and the PDF back; an address that could add a header or a recipient is refused.
@Suite struct MailMessageTests {
  static let reader = """
    import base64, json, sys
    from email import policy
    from email.parser import BytesParser
    message = BytesParser(policy=policy.default).parsebytes(sys.stdin.buffer.read())
    parts = list(message.iter_parts())
    print(json.dumps({
      "from": str(message["From"]), "to": str(message["To"]), "subject": str(message["Subject"]),
      "id": str(message["Message-ID"]), "defects": len(message.defects) + sum(len(p.defects) for p in parts),
      "text": parts[0].get_content(), "file": parts[1].get_filename(),
      "pdf": base64.b64encode(parts[1].get_content()).decode(), "type": parts[1].get_content_type()}))
    """

  @Test func aReaderReadsWhatWasWritten() throws {
    let pdf = Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
    let subject = "Reçu n° 1042 — Café du Port, merci pour votre visite et à bientôt !"
    let message = try MailMessage(
      from: "receipts@cafe.example", to: "anna@example.com", subject: subject,
      text: "Café crème  4,20 €\nTotal  4,20 €\n",
      pdf: pdf, fileName: "Reçu-1042.pdf", messageID: "0190a1b2@cafe.example")
    let result = try Tool.run("python3", ["-c", Self.reader], stdin: message.bytes)
    try #require(result.status == 0, "\(result.stderr)")
    let read = try #require(try JSONSerialization.jsonObject(with: result.output) as? [String: Any])
    #expect(read["from"] as? String == "receipts@cafe.example")
    #expect(read["to"] as? String == "anna@example.com")
    #expect(read["subject"] as? String == subject, "RFC 2047 words decode to the title")
    #expect(read["id"] as? String == "<0190a1b2@cafe.example>")
    #expect(read["defects"] as? Int == 0)
    #expect(read["text"] as? String == "Café crème  4,20 €\nTotal  4,20 €\n")
    #expect(read["file"] as? String == "Reçu-1042.pdf", "RFC 2231 file name")
    #expect(read["type"] as? String == "application/pdf")
    #expect(Data(base64Encoded: read["pdf"] as? String ?? "") == pdf)
    #expect(String(decoding: message.bytes, as: UTF8.self).split(separator: "\r\n").allSatisfy { $0.utf8.count <= 998 })
  }

  @Test(arguments: [
    "anna@example.com\r\nBcc: all@example.com", "Anna <anna@example.com>", "anna@example.com, ben@example.com",
    "-oQ/tmp@example.com", "anna", "anna@localhost", "@example.com", "anna@.example.com", "an na@example.com",
  ])
  func notOneAddress(text: String) {
    #expect(!MailMessage.isAddress(text))
    #expect(throws: MailError.badAddress(text)) {
      try MailMessage(
        from: "receipts@cafe.example", to: text, subject: "x", text: "", pdf: Data(), fileName: "x.pdf",
        messageID: "x@cafe.example")
    }
  }
}
