import Foundation
import Hummingbird
import NIOFoundationEssentialsCompat
import ReceiptKit

/// Reading request bodies: JSON only, within the size limit.
enum RequestBody {
  /// The body of a request that must be JSON (`Content-Type: application/json`, optionally with
  /// a charset of UTF-8). Any other type is 415: a browser can send `text/plain` or a form
  /// across origins without a preflight, and such a request must never print.
  static func json(_ request: Request, limit: Int) async throws -> Data {
    guard let type = request.headers[.contentType] else {
      throw Problem.unsupportedMediaType("send the body with Content-Type: application/json")
    }
    let parts = type.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
    let charsetOK = parts.dropFirst().allSatisfy { parameter in
      !parameter.hasPrefix("charset=") || ["charset=utf-8", "charset=\"utf-8\""].contains(parameter)
    }
    guard parts.first == "application/json", charsetOK else {
      throw Problem.unsupportedMediaType(
        "the body is \(type); send it as Content-Type: application/json (UTF-8)")
    }
    do {
      return Data(buffer: try await request.body.collect(upTo: limit))
    } catch {
      throw Problem(
        status: .contentTooLarge, title: "Content too large", detail: "the body exceeds \(limit) bytes")
    }
  }

  /// A body parsed strictly as one JSON object with only the fields a `what` ("a job") has
  /// (`Field`'s cases): its members by field, and their byte ranges (so an order is kept as the
  /// exact bytes checked). Unknown fields, duplicate keys and anything not an object are 400.
  static func members<Field: RequestField>(_ raw: Data, as _: Field.Type, what: String) throws -> RequestMembers<Field>
  {
    let parsed: (members: [String: JSONValue], ranges: [String: Range<Int>])
    do {
      parsed = try JSONParser.parseObject(raw, name: "body")
    } catch let error as TemplateError {
      throw Problem.badRequest("the body is not a valid JSON object: \(error)")
    }
    let fields = Field.allCases.map(\.rawValue)
    if let unknown = parsed.members.keys.sorted().first(where: { !fields.contains($0) }) {
      throw Problem.badRequest(
        "unknown field '\(unknown)'; \(what) has \(fields.sorted().joined(separator: ", "))", field: unknown)
    }
    return RequestMembers(raw: raw, members: parsed.members, ranges: parsed.ranges)
  }
}

/// The fields of a request body, as an enum whose raw values are the JSON member names.
protocol RequestField: RawRepresentable<String>, CaseIterable, Hashable {}

/// A request body's members, read by field (a name outside `Field` cannot be written).
struct RequestMembers<Field: RequestField> {
  let raw: Data
  fileprivate let members: [String: JSONValue]
  fileprivate let ranges: [String: Range<Int>]

  /// The member's value; nil when the body does not have it.
  subscript(_ field: Field) -> JSONValue? { members[field.rawValue] }

  /// The member's exact bytes in the body (an order kept as it was checked).
  func bytes(of field: Field) -> Data? {
    guard let range = ranges[field.rawValue] else { return nil }
    return Data(raw[raw.startIndex + range.lowerBound..<raw.startIndex + range.upperBound])
  }
}
