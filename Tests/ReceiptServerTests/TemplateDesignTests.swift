import Foundation
import HTTPTypes
import Hummingbird
import ReceiptTestSupport
import Testing

@testable import ReceiptServer

/// What the browser designer relies on: previews of unsaved template text with the cut length,
/// errors at their line and column, and saving templates (token, plain names, checked first,
/// the previous version kept).
@Suite struct TemplateDesignTests {
  static let token = "design-token-20261124"
  static let auth: HTTPFields = [.authorization: "Bearer \(token)"]

  /// A fixture on a copy of the templates (saving writes there) with a token.
  static func fixture(tokens: [String] = [token]) throws -> (ServerFixture, URL) {
    let copy = try Tool.temporaryDirectory().appendingPathComponent("Templates")
    try FileManager.default.copyItem(at: ServerFixture.templates, to: copy)
    let fixture = try ServerFixture { configuration in
      configuration.templates = copy
      configuration.tokens = tokens
    }
    return (fixture, copy)
  }

  static func object(_ buffer: ByteBuffer) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: Data(buffer: buffer)) as? [String: Any]) ?? [:]
  }

  static func renderBody(source: String, paper: String? = nil, model: String? = nil) throws -> ByteBuffer {
    var body: [String: Any] = [
      "template": "draft", "source": source,
      "data": try JSONSerialization.jsonObject(with: Data(ServerFixture.order.utf8)),
    ]
    body["paper"] = paper
    body["model"] = model
    return ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body))
  }

  /// Width and height of a PNG, from its IHDR.
  static func pngSize(_ buffer: ByteBuffer) -> (Int, Int) {
    let bytes = Array(Data(buffer: buffer))
    func be32(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
    return bytes.count > 24 ? (be32(16), be32(20)) : (0, 0)
  }

  @Test func aPreviewOfUnsavedTextGivesTheCutLengthOfTheImageItSends() async throws {
    let (fixture, templates) = try Self.fixture()
    let source = try String(contentsOf: templates.appendingPathComponent("receipt.xml"), encoding: .utf8)
    try await fixture.server.application().test(.router) { client in
      var heights: [String: Int] = [:]
      for paper in ["58mm", "80mm"] {
        try await client.execute(
          uri: "/v1/render?format=png&bytes=escpos", method: .post,
          headers: Self.auth.merging([.contentType: "application/json"]),
          body: try Self.renderBody(source: source, paper: paper)
        ) { response in
          #expect(response.status == .ok, "\(String(buffer: response.body))")
          let (width, height) = Self.pngSize(response.body)
          let dots = Int(response.headers[HTTPField.Name("Receipt-Cut-Length-Dots")!] ?? "")
          #expect(dots == height, "the preview is exactly as long as the receipt (\(paper))")
          #expect(width == (paper == "58mm" ? 463 : 639), "paper width at 203 dpi, rounded down: \(width)")
          let escpos = Int(response.headers[HTTPField.Name("Receipt-ESCPOS-Bytes")!] ?? "") ?? 0
          #expect(escpos > 1000)
          heights[paper] = height
        }
      }
      #expect((heights["58mm"] ?? 0) > (heights["80mm"] ?? 0), "narrower paper wraps into a longer receipt")
      // The same text as the saved template gives the same preview as the template by name.
      var named = ByteBuffer()
      try await client.execute(
        uri: "/v1/render?format=png", method: .post, headers: Self.auth.merging([.contentType: "application/json"]),
        body: ByteBuffer(string: ServerFixture.body())
      ) { named = $0.body }
      try await client.execute(
        uri: "/v1/render?format=png", method: .post, headers: Self.auth.merging([.contentType: "application/json"]),
        body: try Self.renderBody(source: source)
      ) { response in
        #expect(Self.pngSize(response.body) == Self.pngSize(named))
        #expect(Data(buffer: response.body) == Data(buffer: named), "unsaved text renders as the saved file")
      }
    }
  }

  @Test func errorsInUnsavedTextNameTheirLineAndColumn() async throws {
    let (fixture, _) = try Self.fixture()
    let source = "<receipt>\n  <text>fine</text>\n  <text size=\"huge\">bad</text>\n</receipt>\n"
    let broken = "<receipt>\n  <text>fine</text>\n  <text>unclosed\n</receipt>\n"
    try await fixture.server.application().test(.router) { client in
      for (text, line) in [(source, 3), (broken, 4)] {
        try await client.execute(
          uri: "/v1/render?format=png", method: .post, headers: Self.auth.merging([.contentType: "application/json"]),
          body: try Self.renderBody(source: text)
        ) { response in
          #expect(response.status == .unprocessableContent)
          let problem = Self.object(response.body)
          #expect(problem["field"] as? String == "source")
          let location = problem["location"] as? [String: Any]
          #expect(location?["line"] as? Int == line, "\(problem)")
          #expect((location?["column"] as? Int ?? 0) >= 1)
          #expect(location?["file"] as? String == "draft.xml")
        }
      }
    }
  }

  @Test func savingNeedsATokenAPlainNameAndAValidTemplateAndKeepsThePreviousVersion() async throws {
    let (fixture, templates) = try Self.fixture()
    let first = "<receipt>\n  <text>First version</text>\n</receipt>\n"
    let second = "<receipt>\n  <text>Second version</text>\n</receipt>\n"
    let xml: HTTPFields = [.contentType: "application/xml"]
    try await fixture.server.application().test(.router) { client in
      try await client.execute(uri: "/v1/templates/draft", method: .put, headers: xml, body: ByteBuffer(string: first))
      { response in #expect(response.status == .unauthorized) }
      for name in ["..", "a.b", "-x", String(repeating: "n", count: 65), "%2E%2E%2Fescape", "sub%2Fdir"] {
        try await client.execute(
          uri: "/v1/templates/\(name)", method: .put, headers: xml.merging(Self.auth), body: ByteBuffer(string: first)
        ) { response in
          #expect([.badRequest, .notFound].contains(response.status), "\(name): \(response.status)")
        }
      }
      #expect(
        !FileManager.default.fileExists(
          atPath: templates.deletingLastPathComponent().appendingPathComponent("escape.xml").path))
      try await client.execute(
        uri: "/v1/templates/draft", method: .put, headers: xml.merging(Self.auth),
        body: ByteBuffer(string: "<receipt>\n  <txt>typo</txt>\n</receipt>\n")
      ) { response in
        #expect(response.status == .unprocessableContent)
        #expect((Self.object(response.body)["location"] as? [String: Any])?["line"] as? Int == 2)
      }
      try await client.execute(
        uri: "/v1/templates/draft", method: .put,
        headers: HTTPFields([HTTPField(name: .contentType, value: "text/plain")]).merging(Self.auth),
        body: ByteBuffer(string: first)
      ) { response in #expect(response.status == .unsupportedMediaType) }
      try await client.execute(
        uri: "/v1/templates/header", method: .put, headers: xml.merging(Self.auth), body: ByteBuffer(string: first)
      ) { response in #expect(response.status == .conflict, "a fragment is not replaced by a receipt") }
      #expect(!FileManager.default.fileExists(atPath: templates.appendingPathComponent("draft.xml").path))

      try await client.execute(
        uri: "/v1/templates/draft", method: .put, headers: xml.merging(Self.auth), body: ByteBuffer(string: first)
      ) { response in
        #expect(response.status == .created)
        #expect(Self.object(response.body)["previous"] == nil)
      }
      var previous = ""
      try await client.execute(
        uri: "/v1/templates/draft", method: .put, headers: xml.merging(Self.auth), body: ByteBuffer(string: second)
      ) { response in
        #expect(response.status == .ok)
        previous = Self.object(response.body)["previous"] as? String ?? ""
      }
      #expect(previous.hasPrefix(".history/draft-"))
      #expect(try String(contentsOf: templates.appendingPathComponent(previous), encoding: .utf8) == first)
      try await client.execute(uri: "/v1/templates/draft", method: .get, headers: Self.auth) { response in
        #expect(String(buffer: response.body) == second)
      }
      try await client.execute(uri: "/v1/templates", method: .get, headers: Self.auth) { response in
        let names = Self.object(response.body)["templates"] as? [String] ?? []
        #expect(names.contains("draft") && !names.contains { $0.contains("history") })
      }
    }
    // A job with the saved template prints what was saved.
    let job = try await fixture.server.store.submit(
      JobRequest(printer: "archive", template: "draft", data: Data(ServerFixture.order.utf8)), idempotencyKey: nil,
      now: Date()
    ).job
    try await fixture.running { () async throws in
      #expect(await fixture.wait { fixture.printed.contains(PrintWorker.fileName(job)) })
      let pdf = fixture.archive.appendingPathComponent(PrintWorker.fileName(job))
      #expect(try Tool.run("pdftotext", [pdf.path, "-"]).stdout.contains("Second version"))
    }
  }

  @Test func aTemplateThatCannotBeSavedIsNotHalfSaved() async throws {
    let (fixture, templates) = try Self.fixture()
    let original = try Data(contentsOf: templates.appendingPathComponent("gift.xml"))
    // The history cannot be kept (a file where its directory goes): nothing is replaced.
    _ = FileManager.default.createFile(atPath: templates.appendingPathComponent(".history").path, contents: Data())
    try await fixture.server.application().test(.router) { client in
      try await client.execute(
        uri: "/v1/templates/gift", method: .put, headers: Self.auth.merging([.contentType: "application/xml"]),
        body: ByteBuffer(string: "<receipt><text>replaced</text></receipt>")
      ) { response in
        #expect(response.status == .internalServerError)
        #expect((Self.object(response.body)["detail"] as? String ?? "").contains("may write the templates directory"))
      }
    }
    #expect(try Data(contentsOf: templates.appendingPathComponent("gift.xml")) == original)
  }

  @Test func aDaemonWithoutTokensTakesNoTemplates() async throws {
    let (fixture, templates) = try Self.fixture(tokens: [])
    try await fixture.server.application().test(.router) { client in
      try await client.execute(
        uri: "/v1/templates/draft", method: .put, headers: [.contentType: "application/xml"],
        body: ByteBuffer(string: "<receipt><text>x</text></receipt>")
      ) { response in
        #expect(response.status == .forbidden)
        #expect(Self.object(response.body)["detail"] as? String ?? "" != "")
      }
      // The web app itself, models and examples are there.
      try await client.execute(uri: "/", method: .get) { response in
        #expect(response.status == .ok && String(buffer: response.body).contains("<script src=\"/app.js\""))
        #expect(response.headers[.contentSecurityPolicy]?.contains("default-src 'none'") == true)
      }
      try await client.execute(uri: "/v1/models", method: .get) { response in
        let models = Self.object(response.body)["models"] as? [[String: Any]] ?? []
        #expect(models.contains { $0["name"] as? String == "epson-tm-t88v" })
      }
      try await client.execute(uri: "/v1/examples/small", method: .get) { response in
        #expect(response.status == .ok && String(buffer: response.body).contains("\"items\""))
      }
      try await client.execute(uri: "/v1/examples/..%2Fsecret", method: .get) { response in
        #expect(response.status == .badRequest || response.status == .notFound)
      }
    }
    #expect(!FileManager.default.fileExists(atPath: templates.appendingPathComponent("draft.xml").path))
  }

  @Test func theWebAppIsServedWithoutATokenButTheAPIIsNot() async throws {
    let (fixture, _) = try Self.fixture()
    try await fixture.server.application().test(.router) { client in
      for path in ["/", "/app.js", "/app.css"] {
        try await client.execute(uri: path, method: .get) { response in #expect(response.status == .ok, "\(path)") }
      }
      for path in ["/v1/templates", "/v1/templates/receipt", "/v1/events", "/v1/models"] {
        try await client.execute(uri: path, method: .get) { response in
          #expect(response.status == .unauthorized, "\(path)")
        }
      }
    }
  }

  @Test func theEditorIsTheVendoredCodeMirrorGzippedForBrowsers() async throws {
    let (fixture, _) = try Self.fixture()
    let vendor = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
      "../../Vendor/codemirror")
    try await fixture.server.application().test(.router) { client in
      for (path, files) in [
        ("/codemirror.js", ["lib/codemirror.js", "mode/xml/xml.js", "addon/hint/xml-hint.js"]),
        ("/codemirror.css", ["lib/codemirror.css", "addon/hint/show-hint.css"]),
      ] {
        try await client.execute(uri: path, method: .get, headers: [.acceptEncoding: "gzip, deflate, br"]) {
          response in
          #expect(response.status == .ok && response.headers[.contentEncoding] == "gzip", "\(path)")
          // gzip(1) reads it, and it holds the vendored files, unchanged.
          let text = try Tool.run("gzip", ["-dc"], stdin: Data(buffer: response.body)).stdout
          for file in files {
            let original = try String(contentsOf: vendor.appendingPathComponent(file), encoding: .utf8)
            #expect(text.contains(original), "\(path) lacks \(file)")
          }
        }
        // A client that cannot read gzip is told so, not sent bytes it cannot read.
        for refusal in [HTTPFields(), [.acceptEncoding: "identity"], [.acceptEncoding: "gzip;q=0, br"]] {
          try await client.execute(uri: path, method: .get, headers: refusal) { response in
            #expect(response.status == .notAcceptable, "\(path) \(refusal)")
          }
        }
      }
      try await client.execute(uri: "/vocabulary.json", method: .get) { response in
        let schema = Self.object(response.body)
        #expect(response.status == .ok && (schema["receipt"] as? [String: Any])?["children"] != nil)
      }
    }
  }
}

extension HTTPFields {
  /// These fields and `other`'s.
  func merging(_ other: HTTPFields) -> HTTPFields {
    var fields = self
    fields.append(contentsOf: other)
    return fields
  }
}
