import Foundation
import Testing

@testable import ReceiptServer

/// Slicing the order out of a job body gives the same value JSONSerialization sees.
@Suite struct JSONMemberTests {
  func same(_ body: String) throws -> Bool {
    let raw = Data(body.utf8)
    let parsed = try #require(try JSONSerialization.jsonObject(with: raw) as? [String: Any])
    guard let slice = JSONMember.value(of: "data", in: raw) else { return parsed["data"] == nil }
    let value = try JSONSerialization.jsonObject(with: Data(slice), options: .fragmentsAllowed)
    return NSArray(array: [value]).isEqual(NSArray(array: [parsed["data"]!]))
  }

  @Test func slicesMatchTheParsedValue() throws {
    for body in [
      #"{"template": "receipt", "data": {"a": 1, "b": [1, 2, {"c": "}"}]}}"#,
      #"{"data":{"q":"say \"hi\" \\ ok","n":null},"template":"x"}"#,
      #"{ "data" : { "x" : [ ] } , "copies" : 2 }"#,
      #"{"d\u0061ta": {"escaped": "key"}, "t": 1}"#,
      #"{"data": {"first": 1}, "data": {"last": 2}}"#,
      #"{"template": "receipt"}"#,
      #"{"meta": {"data": {"nested": true}}, "data": {"top": true}}"#,
      "{\"data\": {\"emoji\": \"☕️ café 領収書\", \"n\": -1.5e3}}",
    ] {
      #expect(try same(body), "\(body)")
    }
  }

  @Test func fuzzedBodiesAgree() throws {
    var generator = SystemRandomNumberGenerator()
    func value(_ depth: Int) -> Any {
      switch depth > 2 ? Int.random(in: 0...3, using: &generator) : Int.random(in: 0...5, using: &generator) {
      case 0: return Int.random(in: -1000...1000, using: &generator)
      case 1: return ["a\"b", "}{][,:", "\\", "é", ""].randomElement(using: &generator)!
      case 2: return Bool.random(using: &generator)
      case 3: return NSNull()
      case 4: return (0..<Int.random(in: 0...3, using: &generator)).map { _ in value(depth + 1) }
      default:
        return Dictionary(
          uniqueKeysWithValues: (0..<Int.random(in: 0...3, using: &generator)).map { ("k\($0)", value(depth + 1)) })
      }
    }
    for _ in 0..<200 {
      let object: [String: Any] = ["template": "receipt", "data": ["order": value(0)], "copies": 1]
      let body = String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
      #expect(try same(body), "\(body)")
    }
  }
}
