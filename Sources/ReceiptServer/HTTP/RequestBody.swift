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

  /// A body parsed strictly as one JSON object with only the `fields` a `what` ("a job") has:
  /// its members and their byte ranges (so an order is kept as the exact bytes checked).
  /// Unknown fields, duplicate keys and anything not an object are 400.
  static func members(_ raw: Data, fields: [String], what: String) throws -> (
    members: [String: JSONValue], ranges: [String: Range<Int>]
  ) {
    let parsed: (members: [String: JSONValue], ranges: [String: Range<Int>])
    do {
      parsed = try JSONParser.parseObject(raw, name: "body")
    } catch let error as TemplateError {
      throw Problem.badRequest("the body is not a valid JSON object: \(error)")
    }
    if let unknown = parsed.members.keys.sorted().first(where: { !fields.contains($0) }) {
      throw Problem.badRequest(
        "unknown field '\(unknown)'; \(what) has \(fields.sorted().joined(separator: ", "))", field: unknown)
    }
    return parsed
  }
}
