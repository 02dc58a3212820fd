import HTTPTypes
import Hummingbird

/// Browsers and the daemon: every request that carries an `Origin` (all cross-origin requests
/// do, and same-origin ones that write) must come from the daemon's own origin or one on the
/// CORS allow-list; anything else is 403 whatever its method. Without this, any web page open on
/// the POS machine could print with a `text/plain` POST that needs no preflight. Allowed origins
/// get CORS headers (preflights 204, answers with `Access-Control-Allow-Origin`), also on errors.
struct OriginMiddleware<Context: RequestContext>: RouterMiddleware {
  let origins: Set<String>

  init(origins: [String]) { self.origins = Set(origins) }

  func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
    -> Response
  {
    guard let origin = request.headers[.origin] else { return try await next(request, context) }
    let sameOrigin = request.head.authority.map { origin == "http://\($0)" } ?? false
    let listed = origins.contains(origin) || (origins.contains("*") && origin != "null")
    guard sameOrigin || listed else {
      return Problem.forbidden(
        "origin \(origin) may not use this daemon; add it to corsOrigins in the daemon's configuration"
      ).response
    }
    if request.method == .options, request.headers[.accessControlRequestMethod] != nil {
      var headers = HTTPFields()
      headers[.accessControlAllowOrigin] = origin
      headers[.accessControlAllowMethods] = "GET, POST, PUT, DELETE, OPTIONS"
      headers[.accessControlAllowHeaders] = "Authorization, Content-Type, Idempotency-Key, Last-Event-ID"
      headers[.accessControlMaxAge] = "600"
      headers[.vary] = "Origin"
      return Response(status: .noContent, headers: headers)
    }
    var response = try await next(request, context)  // errors are responses already (ProblemMiddleware)
    response.headers[.accessControlAllowOrigin] = origin
    response.headers[.accessControlExposeHeaders] =
      "Location, Retry-After, Receipt-Cut-Length, Receipt-Cut-Length-Mm, Receipt-Cut-Length-Dots, Receipt-Pages, Receipt-ESCPOS-Bytes"
    response.headers[.vary] = "Origin"
    return response
  }
}
