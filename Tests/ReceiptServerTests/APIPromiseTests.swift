import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ReceiptKit
import ReceiptTestSupport
import Testing

@testable import ReceiptServer

/// The README's promises about the API, one by one: limits, paging, previews in every format
/// (checked by independent decoders), metrics, tokens on every route.
@Suite struct APIPromiseTests {
  func object(_ buffer: ByteBuffer) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: Data(buffer: buffer)) as? [String: Any]) ?? [:]
  }

  @Test func idempotencyKeysAreOneTo200Characters() async throws {
    let fixture = try ServerFixture()
    try await fixture.server.application().test(.router) { client in
      for (key, status) in [
        ("", HTTPResponse.Status.badRequest), (String(repeating: "k", count: 201), .badRequest),
        (String(repeating: "k", count: 200), .accepted), ("k", .accepted),
      ] {
        try await client.execute(
          uri: "/v1/jobs", method: .post,
          headers: [.contentType: "application/json", HTTPField.Name("Idempotency-Key")!: key],
          body: ByteBuffer(string: ServerFixture.body())
        ) { #expect($0.status == status, "key of \(key.count) characters") }
      }
    }
  }

  @Test func listsArePagedNewestFirstWithLimitsFrom1To500() async throws {
    let fixture = try ServerFixture()
    let jobs = try await (0..<7).asyncMap { _ in
      try await fixture.server.store.submit(
        JobRequest(printer: "archive", template: "receipt", data: Data("{}".utf8)), idempotencyKey: nil, now: Date()
      ).job
    }
    try await fixture.server.application().test(.router) { client in
      for limit in ["0", "501", "x", "-1"] {
        try await client.execute(uri: "/v1/jobs?limit=\(limit)", method: .get) {
          #expect($0.status == .badRequest, "limit \(limit)")
        }
      }
      var seen: [String] = []
      var cursor: String?
      repeat {
        let uri = "/v1/jobs?limit=3" + (cursor.map { "&cursor=\($0)" } ?? "")
        cursor = try await client.execute(uri: uri, method: .get) { response in
          let page = object(response.body)
          seen += (page["jobs"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
          return page["next"] as? String
        }
      } while cursor != nil
      #expect(seen == jobs.reversed().map(\.id), "every job once, newest first")
      try await client.execute(uri: "/v1/jobs?limit=500", method: .get) {
        #expect((object($0.body)["jobs"] as? [Any])?.count == 7)
      }
    }
  }

  @Test func ordersOver8MiBAreRefusedEvenWhenTheBodyLimitIsHigher() async throws {
    let fixture = try ServerFixture { $0.maxBodyBytes = 10 << 20 }
    let big = #"{"padding": ""# + String(repeating: "x", count: (8 << 20) + 10) + #""}"#
    try await fixture.server.application().test(.router) { client in
      try await client.execute(
        uri: "/v1/jobs", method: .post, headers: ServerFixture.json,
        body: ByteBuffer(string: ServerFixture.body(data: big))
      ) { response in
        #expect(response.status == .badRequest)
        #expect(object(response.body)["field"] as? String == "data")
      }
    }
  }

  @Test func previewsInEveryFormatDecodeWithIndependentTools() async throws {
    let fixture = try ServerFixture()
    let dir = try Tool.temporaryDirectory()
    try await fixture.server.application().test(.router) { client in
      for (format, type) in [("pdf", "application/pdf"), ("png", "image/png"), ("pwg", "image/pwg-raster")] {
        let body = try await client.execute(
          uri: "/v1/render?format=\(format)", method: .post, headers: ServerFixture.json,
          body: ByteBuffer(string: ServerFixture.body())
        ) { response in
          #expect(response.status == .ok && response.headers[.contentType] == type, "\(format)")
          return Data(buffer: response.body)
        }
        let file = dir.appendingPathComponent("r.\(format)")
        try body.write(to: file)
        switch format {
        case "pdf":
          #expect(try Tool.run("pdftotext", [file.path, "-"]).stdout.contains("Corner Café"))
        case "png":
          let png = try Tool.decodePNG(file)
          #expect(png.width == 639 && png.bits == 1 && png.height > 500)
        default:
          let reader = Tool.packageRoot.appendingPathComponent("Tests/Support/pwg_reader.py").path
          let page = try Tool.run("python3", [reader], stdin: body)
          #expect(page.status == 0 && page.stdout.contains("\"width\": 639"), "\(page.stderr)")
        }
      }
    }
  }

  @Test func metricsCountJobsRendersAndPrints() async throws {
    let fixture = try ServerFixture()
    try await fixture.running {
      try await fixture.server.application().test(.router) { client in
        for _ in 0..<2 {
          try await client.execute(
            uri: "/v1/jobs", method: .post, headers: ServerFixture.json, body: ByteBuffer(string: ServerFixture.body())
          ) { #expect($0.status == .accepted) }
        }
        try await client.execute(
          uri: "/v1/render", method: .post, headers: ServerFixture.json, body: ByteBuffer(string: ServerFixture.body())
        ) { #expect($0.status == .ok) }
      }
      #expect(await fixture.wait { fixture.printed.count == 2 })
      try await fixture.server.application().test(.router) { client in
        try await client.execute(uri: "/metrics", method: .get) { response in
          let text = String(buffer: response.body)
          #expect(text.contains(#"receipt_jobs{printer="archive",state="completed"} 2"#), "\(text)")
          #expect(text.contains("receipt_render_seconds_count 1"))
          #expect(text.contains("receipt_print_seconds_count 2"))
        }
      }
    }
  }

  @Test func everyRouteButHealthNeedsTheToken() async throws {
    let token = "0123456789abcdef0123"
    let fixture = try ServerFixture { $0.tokens = [token] }
    try await fixture.server.application().test(.router) { client in
      for (pattern, methods) in MethodNotAllowedMiddleware<BasicRequestContext>.routes {
        let path = "/" + pattern.map { $0 == "*" ? "some-id" : $0 }.joined(separator: "/")
        for method in methods {
          try await client.execute(
            uri: path, method: method, headers: ServerFixture.json, body: ByteBuffer(string: ServerFixture.body())
          ) { response in
            if path == "/healthz" {
              #expect(response.status == .ok)
            } else {
              #expect(response.status == .unauthorized, "\(method) \(path)")
            }
          }
        }
      }
    }
  }
}
