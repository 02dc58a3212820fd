import HTTPTypes
import Hummingbird

/// Requires `Authorization: Bearer <token>` on every request but `/healthz` when tokens are set.
struct BearerTokenMiddleware<Context: RequestContext>: RouterMiddleware {
  let tokens: [String]

  func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
    -> Response
  {
    guard !tokens.isEmpty, request.method != .options, request.uri.path != "/healthz" else {
      return try await next(request, context)
    }
    let header = request.headers[.authorization] ?? ""
    guard header.hasPrefix("Bearer "), tokens.contains(String(header.dropFirst(7))) else {
      throw Problem(
        status: .unauthorized, title: "Unauthorized",
        detail: "send Authorization: Bearer <token> with a token from the daemon's configuration")
    }
    return try await next(request, context)
  }
}

/// CORS for browser POS pages: only origins on the allow-list get `Access-Control-Allow-Origin`
/// and an answer to preflight requests. (Hummingbird's CORSMiddleware takes a fixed origin or a
/// variadic list; the list here comes from configuration at run time.)
struct CORSAllowListMiddleware<Context: RequestContext>: RouterMiddleware {
  let origins: Set<String>

  init(origins: [String]) { self.origins = Set(origins) }

  func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
    -> Response
  {
    guard let origin = request.headers[.origin] else { return try await next(request, context) }
    let allowed = origins.contains(origin) || origins.contains("*")
    if request.method == .options, request.headers[.accessControlRequestMethod] != nil {
      guard allowed else {
        return Problem(
          status: .forbidden, title: "Forbidden", detail: "origin \(origin) is not in the daemon's CORS allow-list"
        ).response
      }
      var headers = HTTPFields()
      headers[.accessControlAllowOrigin] = origin
      headers[.accessControlAllowMethods] = "GET, POST, DELETE, OPTIONS"
      headers[.accessControlAllowHeaders] = "Authorization, Content-Type, Idempotency-Key"
      headers[.accessControlMaxAge] = "600"
      headers[.vary] = "Origin"
      return Response(status: .noContent, headers: headers)
    }
    var response = try await next(request, context)
    if allowed {
      response.headers[.accessControlAllowOrigin] = origin
      response.headers[.accessControlExposeHeaders] = "Location"
      response.headers[.vary] = "Origin"
    }
    return response
  }
}

/// Answers 405 with an `Allow` header for a method a known path does not take (the router
/// alone would say 404).
struct MethodNotAllowedMiddleware<Context: RequestContext>: RouterMiddleware {
  /// Path patterns (`*` is one segment) and their methods.
  static var routes: [([String], [HTTPRequest.Method])] {
    [
      (["v1", "jobs"], [.get, .post]), (["v1", "jobs", "*"], [.get, .delete]), (["v1", "jobs", "*", "retry"], [.post]),
      (["v1", "render"], [.post]), (["v1", "printers"], [.get]), (["v1", "templates"], [.get]), (["healthz"], [.get]),
      (["readyz"], [.get]), (["metrics"], [.get]), (["openapi.yaml"], [.get]),
    ]
  }

  func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
    -> Response
  {
    let segments = request.uri.path.split(separator: "/").map(String.init)
    guard
      let methods = Self.routes.first(where: { pattern, _ in
        pattern.count == segments.count && zip(pattern, segments).allSatisfy { $0 == "*" || $0 == $1 }
      })?.1
    else { return try await next(request, context) }
    let allowed = methods
    guard allowed.contains(request.method) else {
      var response = Problem(
        status: .methodNotAllowed, title: "Method not allowed",
        detail: "\(request.uri.path) takes \(allowed.map(\.rawValue).joined(separator: ", "))"
      ).response
      response.headers[.allow] = allowed.map(\.rawValue).joined(separator: ", ")
      return response
    }
    return try await next(request, context)
  }
}
