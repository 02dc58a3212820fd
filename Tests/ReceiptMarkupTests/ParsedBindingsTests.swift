import Foundation
import Testing

@testable import ReceiptMarkup

/// Bindings parsed once for the process still report the place they are written: the same text
/// in two templates, or twice in one, at different lines and columns, warns and fails at each.
@Suite(.serialized) struct ParsedBindingsTests {
  let text = "${items | sum:'total + total_tax' | currency:EUR}"
  let data = #"{"items": [{"total": "31.50", "total_tax": "3.60"}, {"total": "10", "total_tax": null}]}"#

  @Test func theSameTextWarnsAtEachPlace() throws {
    let fixture = try TemplateFixture([
      "a.xml": "<receipt><text>\(text)</text></receipt>",
      "b.xml": "<receipt>\n\n  <text>x</text>\n  <text>\(text)</text></receipt>",
    ])
    // The warning points at `sum`: its column in each file's line, counted here from the text.
    func column(_ line: String) -> Int {
      line.distance(from: line.startIndex, to: line.range(of: "sum")!.lowerBound) + 1
    }
    let a = column("<receipt><text>\(text)")
    let b = column("  <text>\(text)")
    for _ in 0..<2 {
      let warningsA = try fixture.library.validate(template: "a", data: Data(data.utf8))
      let warningsB = try fixture.library.validate(template: "b", data: Data(data.utf8))
      let message = "sum: element 2 of 2 has no value at $total_tax; left out of the sum"
      #expect(warningsA == ["a.xml:1:\(a): \(message)"], "\(warningsA)")
      #expect(warningsB == ["b.xml:4:\(b): \(message)"], "\(warningsB)")
    }
  }

  /// Locations are kept per template text and place once worked out (``SourceText``): two
  /// bindings of one text, and one of an attribute, warn at their own columns for every receipt.
  @Test func eachBindingOfATextWarnsAtItsOwnColumnEveryTime() throws {
    let line = #"<receipt><text>Hi ${first}, ${second}</text><qrcode data="x ${third}"/></receipt>"#
    let fixture = try TemplateFixture(["t.xml": line])
    func column(_ s: String) -> Int { line.distance(from: line.startIndex, to: line.range(of: s)!.lowerBound) + 1 }
    for _ in 0..<3 {
      let warnings = try fixture.library.validate(template: "t", data: Data("{}".utf8))
      #expect(
        warnings == [
          "t.xml:1:\(column("first")): no value at $first in the order data; printed empty",
          "t.xml:1:\(column("second")): no value at $second in the order data; printed empty",
          "t.xml:1:\(column("third")): no value at $third in the order data; printed empty",
        ], "\(warnings)")
    }
  }

  /// A text that does not parse fails at its own place every time (errors are not kept).
  @Test func aBadTextFailsAtEachPlace() throws {
    let bad = "${items | sum:'total +' }"
    let fixture = try TemplateFixture([
      "a.xml": "<receipt><text>\(bad)</text></receipt>", "b.xml": "<receipt>\n <text>\(bad)</text></receipt>",
    ])
    for name in ["a", "b", "a", "b"] {
      #expect(throws: (any Error).self) { try fixture.library.validate(template: name) }
      do {
        _ = try fixture.library.validate(template: name)
      } catch {
        #expect("\(error)".hasPrefix(name == "a" ? "a.xml:1:" : "b.xml:2:"), "\(error)")
      }
    }
  }
}
