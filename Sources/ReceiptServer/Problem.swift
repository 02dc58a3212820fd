import Foundation
import HTTPTypes
import Hummingbird

/// An RFC 9457 problem: the error body of every failed request.
struct Problem: Error {
  var status: HTTPResponse.Status
  var title: String
  var detail: String
  /// The request field at fault, if one is.
  var field: String?

  var response: Response {
    var object: [String: Any] = [
      "type": "about:blank", "title": title, "status": Int(status.code), "detail": detail,
    ]
    if let field { object["field"] = field }
    let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    return Response(
      status: status, headers: [.contentType: "application/problem+json"],
      body: .init(byteBuffer: ByteBuffer(bytes: data)))
  }

  static func badRequest(_ detail: String, field: String? = nil) -> Problem {
    Problem(status: .badRequest, title: "Bad request", detail: detail, field: field)
  }
  static func notFound(_ detail: String) -> Problem { Problem(status: .notFound, title: "Not found", detail: detail) }
  static func unprocessable(_ detail: String, field: String? = nil) -> Problem {
    Problem(status: .unprocessableContent, title: "Unprocessable content", detail: detail, field: field)
  }
  static func conflict(_ detail: String) -> Problem { Problem(status: .conflict, title: "Conflict", detail: detail) }
}

/// Turns thrown problems into problem+json responses.
struct ProblemMiddleware<Context: RequestContext>: RouterMiddleware {
  func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
    -> Response
  {
    do {
      return try await next(request, context)
    } catch let problem as Problem {
      return problem.response
    } catch let error as HTTPError {
      return Problem(
        status: error.status, title: error.status.reasonPhrase, detail: error.body ?? error.status.reasonPhrase
      ).response
    }
  }
}
