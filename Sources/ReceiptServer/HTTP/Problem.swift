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
  /// Seconds after which trying again makes sense (`Retry-After`), for 429 and 503.
  var retryAfter: Int?
  /// Where in a template or order the error is.
  var location: ProblemLocation?

  var response: Response {
    var headers: HTTPFields = [.contentType: "application/problem+json"]
    if let retryAfter { headers[.retryAfter] = String(retryAfter) }
    return json(
      ProblemResponse(title: title, status: Int(status.code), detail: detail, field: field, location: location),
      status: status,
      headers: headers)
  }

  static func badRequest(_ detail: String, field: String? = nil) -> Problem {
    Problem(status: .badRequest, title: "Bad request", detail: detail, field: field)
  }
  static func notFound(_ detail: String) -> Problem { Problem(status: .notFound, title: "Not found", detail: detail) }
  static func unprocessable(_ detail: String, field: String? = nil) -> Problem {
    Problem(status: .unprocessableContent, title: "Unprocessable content", detail: detail, field: field)
  }
  static func conflict(_ detail: String) -> Problem { Problem(status: .conflict, title: "Conflict", detail: detail) }
  static func unsupportedMediaType(_ detail: String) -> Problem {
    Problem(status: .unsupportedMediaType, title: "Unsupported media type", detail: detail)
  }
  static func forbidden(_ detail: String) -> Problem { Problem(status: .forbidden, title: "Forbidden", detail: detail) }
  static func busy(_ detail: String) -> Problem {
    Problem(status: .tooManyRequests, title: "Too many requests", detail: detail, retryAfter: 1)
  }
  static func unavailable(_ detail: String) -> Problem {
    Problem(status: .serviceUnavailable, title: "Service unavailable", detail: detail, retryAfter: 5)
  }
}

/// Turns thrown errors into problem+json responses: problems as they are, a store that cannot
/// write into 503 with `Retry-After` (nothing was accepted; send the same request again), a
/// full preview queue into 429.
struct ProblemMiddleware<Context: RequestContext>: RouterMiddleware {
  func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
    -> Response
  {
    do {
      return try await next(request, context)
    } catch let problem as Problem {
      return problem.response
    } catch let error as StoreUnavailable {
      return Problem.unavailable(
        "the job queue cannot be written (\(error.reason)); nothing was accepted, send it again"
      )
      .response
    } catch is BlockingPool.Full {
      return Problem.busy("too many previews at once; try again in a second").response
    } catch let error as HTTPError {
      return Problem(
        status: error.status, title: error.status.reasonPhrase, detail: error.body ?? error.status.reasonPhrase
      ).response
    }
  }
}
