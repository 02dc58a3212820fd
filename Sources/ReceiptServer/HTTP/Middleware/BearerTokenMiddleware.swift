import HTTPTypes
import Hummingbird

/// Requires `Authorization: Bearer <token>` on every request but `/healthz`, the web app's
/// files, `/cloudprnt` and `/epson-sdp` (printers that poll send their own credentials) and the
/// webhooks' `POST /v1/webhooks/NAME` (signed by their senders) when tokens are set.
struct BearerTokenMiddleware<Context: RequestContext>: RouterMiddleware {
  let tokens: [String]

  func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
    -> Response
  {
    let open =
      request.uri.path == "/healthz" || PollingFronts.paths.contains(request.uri.path)
      || (request.method == .get && WebApp.files[request.uri.path] != nil)
      || (request.method == .post && request.uri.path.hasPrefix(WebhookFront.path))
    guard !tokens.isEmpty, request.method != .options, !open else {
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
