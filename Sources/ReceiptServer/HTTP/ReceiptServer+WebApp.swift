import HTTPTypes
import Hummingbird

extension ReceiptServer {
  /// The web app's files (compiled in from `Resources/web/`) by path; served without a token
  /// (they hold no data: the app asks for the token and sends it with every API call).
  static let webApp: [String: (type: String, bytes: [UInt8])] = [
    "/": ("text/html; charset=utf-8", PackageResources.index_html),
    "/app.js": ("text/javascript; charset=utf-8", PackageResources.app_js),
    "/app.css": ("text/css; charset=utf-8", PackageResources.app_css),
    "/favicon.svg": ("image/svg+xml", PackageResources.favicon_svg),
  ]

  /// Everything the page may load comes from the daemon itself; previews are blob: images.
  static let contentSecurityPolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob:; connect-src 'self'; "
    + "frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

  func addWebApp(to router: Router<BasicRequestContext>) {
    for (path, file) in Self.webApp {
      router.get(RouterPath(path)) { _, _ in
        Response(
          status: .ok,
          headers: [
            .contentType: file.type, .cacheControl: "no-cache", .contentSecurityPolicy: Self.contentSecurityPolicy,
            .init("X-Content-Type-Options")!: "nosniff", .init("Referrer-Policy")!: "no-referrer",
          ],
          body: .init(byteBuffer: ByteBuffer(bytes: file.bytes)))
      }
    }
  }
}
