import Foundation
import HTTPTypes
import Hummingbird
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

  /// The three previews are one receipt: poppler reads the PDF's page (80 mm wide, the cut
  /// length in the answer's `Receipt-Cut-Length` headers), netpbm the PNG and the PWG reader
  /// written from the specification the raster — each exactly that length at 203 dpi.
  @Test func previewsInEveryFormatDecodeWithIndependentTools() async throws {
    let fixture = try ServerFixture()
    let dir = try Tool.temporaryDirectory()
    let heights = try await fixture.server.application().test(.router) { client in
      var heights: [String: Int] = [:]
      for (format, type) in [("pdf", "application/pdf"), ("png", "image/png"), ("pwg", "image/pwg-raster")] {
        let (body, cut) = try await client.execute(
          uri: "/v1/render?format=\(format)", method: .post, headers: ServerFixture.json,
          body: ByteBuffer(string: ServerFixture.body())
        ) { response in
          #expect(response.status == .ok && response.headers[.contentType] == type, "\(format)")
          let cut = (
            Double(response.headers[.init("Receipt-Cut-Length")!] ?? "") ?? 0,
            Double(response.headers[.init("Receipt-Cut-Length-Mm")!] ?? "") ?? 0,
            Int(response.headers[.init("Receipt-Cut-Length-Dots")!] ?? "") ?? 0
          )
          return (Data(buffer: response.body), cut)
        }
        let file = dir.appendingPathComponent("r.\(format)")
        try body.write(to: file)
        switch format {
        case "pdf":
          #expect(try Tool.run("pdftotext", [file.path, "-"]).stdout.contains("Corner Café"))
          let size = try #require(try Tool.pdfPageSizes(file).first)
          #expect(abs(size.width - 80 / 25.4 * 72) < 0.01, "80 mm wide: \(size.width) pt")
          let dots = Int((size.height * 203 / 72).rounded(.up))
          heights["pdf"] = dots
          #expect(abs(cut.0 - size.height) < 0.01, "Receipt-Cut-Length \(cut.0) vs \(size.height) pt")
          #expect(abs(cut.1 - size.height * 25.4 / 72) < 0.06, "Receipt-Cut-Length-Mm \(cut.1)")
          #expect(abs(cut.2 - dots) <= 1, "Receipt-Cut-Length-Dots \(cut.2)")
        case "png":
          let png = try Tool.decodePNG(file)
          #expect(png.width == 639 && png.bits == 1)
          heights["png"] = png.height
        default:
          let reader = Tool.packageRoot.appendingPathComponent("Tests/Support/pwg_reader.py").path
          let page = try Tool.run("python3", [reader], stdin: body)
          try #require(page.status == 0, "\(page.stderr)")
          let json = try #require(try JSONSerialization.jsonObject(with: Data(page.stdout.utf8)) as? [String: Any])
          #expect(
            json["width"] as? Int == 639 && (json["resolution"] as? [Int]) == [203, 203], "\(json["width"] ?? "")")
          heights["pwg"] = json["height"] as? Int
        }
      }
      return heights
    }
    let pdf = try #require(heights["pdf"])
    #expect(pdf > 400, "the example is a long receipt: \(pdf) dots")
    #expect(abs((heights["png"] ?? 0) - pdf) <= 1 && abs((heights["pwg"] ?? 0) - pdf) <= 1, "\(heights)")
  }

  /// `POST /v1/orders` on a daemon without routes is 422, saying what to add.
  @Test func ordersWithoutRoutesAre422() async throws {
    let fixture = try ServerFixture()
    try await fixture.server.application().test(.router) { client in
      try await client.execute(
        uri: "/v1/orders", method: .post, headers: ServerFixture.json,
        body: ByteBuffer(string: #"{"data": {"items": []}}"#)
      ) { response in
        #expect(response.status == .unprocessableContent)
        #expect(String(buffer: response.body).contains("the daemon has no routes"), "\(String(buffer: response.body))")
      }
    }
    #expect(try await fixture.server.store.jobs(state: nil, printer: nil, limit: 10, before: nil).isEmpty)
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
      // Printed and recorded (the file is written before the job is marked completed).
      #expect(
        await fixture.wait {
          (try? await fixture.server.store.jobs(state: .completed, printer: nil, limit: 10, before: nil).count) == 2
        })
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
