import Foundation
import Hummingbird
import NIOFoundationEssentialsCompat

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
}
