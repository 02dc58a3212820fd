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
