import Foundation
import HTTPTypes
import Hummingbird
import ReceiptKit

/// One file of the web app, compiled in.
struct WebFile: Sendable {
  var type: String
  var bytes: [UInt8]
  /// The bytes are gzip: sent with `Content-Encoding: gzip` to clients that accept it.
  var gzip = false
}

/// The designer and queue web app, compiled in: its files and how they are served.
enum WebApp {
  /// The web app's files (compiled in from `Resources/web/`, the editor from `Vendor/codemirror`
  /// via `WebApp+CodeMirror.swift`, the template vocabulary from ReceiptMarkup) by path; served
  /// without a token (they hold no data: the app asks for the token and sends it with every API
  /// call).
  static let files: [String: WebFile] = [
    "/": WebFile(type: "text/html; charset=utf-8", bytes: PackageResources.index_html),
    "/app.js": WebFile(type: "text/javascript; charset=utf-8", bytes: PackageResources.app_js),
    "/app.css": WebFile(type: "text/css; charset=utf-8", bytes: PackageResources.app_css),
    "/favicon.svg": WebFile(type: "image/svg+xml", bytes: PackageResources.favicon_svg),
    "/codemirror.js": WebFile(
      type: "text/javascript; charset=utf-8", bytes: [UInt8](codeMirrorScript), gzip: true),
    "/codemirror.css": WebFile(type: "text/css; charset=utf-8", bytes: [UInt8](codeMirrorStyle), gzip: true),
    "/vocabulary.json": WebFile(
      type: "application/json", bytes: [UInt8](TemplateVocabulary.editorSchema())),
  ]

  /// Everything the page may load comes from the daemon itself; previews are blob: images.
  static let contentSecurityPolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob:; connect-src 'self'; "
    + "frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

  static func add(to router: Router<BasicRequestContext>) {
    for (path, file) in files {
      router.get(RouterPath(path)) { request, _ in
        var headers: HTTPFields = [
          .contentType: file.type, .cacheControl: "no-cache", .contentSecurityPolicy: Self.contentSecurityPolicy,
          .xContentTypeOptions: "nosniff", .referrerPolicy: "no-referrer",
        ]
        if file.gzip {
          // Every browser accepts gzip; a client that says it does not gets a clear refusal
          // rather than bytes it cannot read (the daemon carries no decompressor).
          guard Self.acceptsGzip(request.headers[values: .acceptEncoding]) else {
            return Response(
              status: .notAcceptable, headers: [.contentType: "text/plain; charset=utf-8"],
              body: .init(byteBuffer: ByteBuffer(string: "\(path) is served gzip-compressed only; accept gzip\n")))
          }
          headers[.contentEncoding] = "gzip"
          headers[.vary] = "Accept-Encoding"
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: file.bytes)))
      }
    }
  }

  /// Whether an Accept-Encoding header list admits gzip (RFC 9110 §12.5.3: `gzip`, `x-gzip` or
  /// `*`, unless its weight is `q=0`).
  static func acceptsGzip(_ values: [String]) -> Bool {
    for item in values.joined(separator: ",").split(separator: ",") {
      let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
      guard let coding = parts.first, ["gzip", "x-gzip", "*"].contains(coding) else { continue }
      let q = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
      if q > 0 { return true }
    }
    return false
  }
}
