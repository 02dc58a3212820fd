import Foundation
import ReceiptMarkup
import ReceiptTestSupport
import Testing

/// Every template example in the README renders with the JSON after it, and the PDF shows what
/// its `<!-- expect: a | b -->` line says: the reference cannot drift from the implementation.
@Suite struct ReadmeExampleTests {
  struct Example: CustomStringConvertible {
    var xml: String
    var json: String
    var expected: [String]
    var description: String { String(xml.prefix(60)) }
  }

  static func examples() throws -> [Example] {
    let readme = Tool.manual
    var examples: [Example] = []
    var rest = Substring(readme)
    while let start = rest.range(of: "```xml\n") {
      let body = rest[start.upperBound...]
      guard let end = body.range(of: "```\n") else { break }
      let xml = String(body[..<end.lowerBound])
      var after = body[end.upperBound...]
      var json = "{}"
      if after.hasPrefix("```json\n"), let close = after.dropFirst(8).range(of: "```\n") {
        json = String(after.dropFirst(8)[..<close.lowerBound])
        after = after[close.upperBound...]
      }
      var expected: [String] = []
      if after.hasPrefix("<!-- expect: "), let close = after.range(of: " -->") {
        expected = after[after.index(after.startIndex, offsetBy: 13)..<close.lowerBound].components(separatedBy: " | ")
      }
      examples.append(Example(xml: xml, json: json, expected: expected))
      rest = after
    }
    return examples
  }

  @Test func theReadmeHasExamplesWithExpectations() throws {
    let examples = try Self.examples()
    #expect(examples.count >= 4)
    #expect(examples.allSatisfy { !$0.expected.isEmpty })
  }

  @Test(arguments: try examples())
  func rendersAsDocumented(example: Example) throws {
    let rendered = try TemplateFixture(["t.xml": example.xml]).render(example.json, options: .init(strict: true))
    let text = try rendered.pdfText()
    for expected in example.expected {
      #expect(text.contains(expected), "README example does not show \"\(expected)\":\n\(text)")
    }
  }
}
