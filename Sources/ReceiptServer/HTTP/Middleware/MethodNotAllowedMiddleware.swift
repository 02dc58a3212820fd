import HTTPTypes
import Hummingbird

/// Answers 405 with an `Allow` header for a method a known path does not take (the router
/// alone would say 404).
struct MethodNotAllowedMiddleware<Context: RequestContext>: RouterMiddleware {
  /// Path patterns (`*` is one segment) and their methods.
  static var routes: [([String], [HTTPRequest.Method])] {
    [
      (["v1", "jobs"], [.get, .post]), (["v1", "jobs", "*"], [.get, .delete]), (["v1", "jobs", "*", "retry"], [.post]),
      (["v1", "jobs", "*", "reprint"], [.post]), (["v1", "jobs", "*", "document.pdf"], [.get]),
      (["v1", "orders"], [.post]), (["v1", "orders", "*"], [.get]),
      (["v1", "render"], [.post]), (["v1", "printers"], [.get]), (["v1", "templates"], [.get]),
      (["v1", "templates", "*"], [.get, .put]), (["v1", "models"], [.get]), (["v1", "examples"], [.get]),
      (["v1", "examples", "*"], [.get]), (["v1", "events"], [.get]), (["healthz"], [.get]),
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
