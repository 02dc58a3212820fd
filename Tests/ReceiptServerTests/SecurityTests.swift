import Foundation
import HTTPTypes
import Hummingbird
import ReceiptTestSupport
import Testing

@testable import ReceiptServer

/// Bearer tokens, the CORS allow-list and method checks, through Hummingbird's test client.
@Suite struct SecurityTests {
  static let token = "0123456789abcdef0123"

  @Test func tokensGuardEveryRouteButHealth() async throws {
    let fixture = try ServerFixture { $0.tokens = [Self.token] }
    try await fixture.server.application().test(.router) { client in
      for (uri, method) in [
        ("/v1/jobs", HTTPRequest.Method.get), ("/v1/printers", .get), ("/v1/templates", .get), ("/metrics", .get),
        ("/readyz", .get), ("/v1/jobs", .post), ("/v1/jobs/x", .delete),
      ] {
        try await client.execute(
          uri: uri, method: method, headers: ServerFixture.json, body: ByteBuffer(string: ServerFixture.body())
        ) {
          #expect($0.status == .unauthorized, "\(method) \(uri)")
          #expect($0.headers[.contentType] == "application/problem+json")
        }
        try await client.execute(
          uri: uri, method: method,
          headers: [.authorization: "Bearer wrong-token-0000000", .contentType: "application/json"],
          body: ByteBuffer(string: ServerFixture.body())
        ) { #expect($0.status == .unauthorized, "wrong token: \(method) \(uri)") }
      }
      try await client.execute(uri: "/healthz", method: .get) { #expect($0.status == .ok) }
      try await client.execute(
        uri: "/v1/jobs", method: .post,
        headers: [.contentType: "application/json", .authorization: "Bearer \(Self.token)"],
        body: ByteBuffer(string: ServerFixture.body())
      ) { #expect($0.status == .accepted) }
    }
  }

  @Test func corsAnswersOnlyAllowedOrigins() async throws {
    let fixture = try ServerFixture { $0.corsOrigins = ["https://pos.example.com"] }
    try await fixture.server.application().test(.router) { client in
      let preflight: HTTPFields = [
        .origin: "https://pos.example.com", .accessControlRequestMethod: "POST",
        .accessControlRequestHeaders: "content-type, idempotency-key",
      ]
      try await client.execute(uri: "/v1/jobs", method: .options, headers: preflight) { response in
        #expect(response.status == .noContent)
        #expect(response.headers[.accessControlAllowOrigin] == "https://pos.example.com")
        #expect(response.headers[.accessControlAllowHeaders]?.contains("Idempotency-Key") == true)
      }
      var evil = preflight
      evil[.origin] = "https://evil.example.net"
      try await client.execute(uri: "/v1/jobs", method: .options, headers: evil) { response in
        #expect(response.status == .forbidden)
        #expect(response.headers[.accessControlAllowOrigin] == nil)
      }
      // Actual requests: allowed origins get the header, also on errors; others do not.
      try await client.execute(
        uri: "/v1/jobs", method: .post,
        headers: [.contentType: "application/json", .origin: "https://pos.example.com"],
        body: ByteBuffer(string: ServerFixture.body())
      ) { response in
        #expect(response.status == .accepted)
        #expect(response.headers[.accessControlAllowOrigin] == "https://pos.example.com")
        #expect(response.headers[.accessControlExposeHeaders]?.contains("Location") == true)
      }
      try await client.execute(
        uri: "/v1/jobs/nope", method: .get, headers: [.origin: "https://pos.example.com"]
      ) { response in
        #expect(response.status == .notFound)
        #expect(response.headers[.accessControlAllowOrigin] == "https://pos.example.com")
      }
      try await client.execute(uri: "/v1/jobs", method: .get, headers: [.origin: "https://evil.example.net"]) {
        #expect($0.headers[.accessControlAllowOrigin] == nil)
      }
    }
  }

  @Test func aWrongMethodIs405WithAllow() async throws {
    let fixture = try ServerFixture()
    try await fixture.server.application().test(.router) { client in
      try await client.execute(uri: "/v1/jobs/abc", method: .put) { response in
        #expect(response.status == .methodNotAllowed)
        #expect(response.headers[.allow] == "GET, DELETE")
      }
      try await client.execute(uri: "/v1/render", method: .get) { #expect($0.headers[.allow] == "POST") }
      try await client.execute(uri: "/v1/nothing", method: .get) { #expect($0.status == .notFound) }
    }
  }

  @Test func fragmentsAndOddNamesAreNotTemplates() async throws {
    let fixture = try ServerFixture()
    try await fixture.server.application().test(.router) { client in
      try await client.execute(uri: "/v1/templates", method: .get) { response in
        let names = (try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: [String]])?[
          "templates"]
        #expect(names == ["gift", "kitchen", "receipt"], "header.xml is a fragment")
      }
      for name in ["header", "../Templates/receipt", "receipt.xml", "Examples/small"] {
        try await client.execute(
          uri: "/v1/jobs", method: .post, headers: ServerFixture.json,
          body: ByteBuffer(string: ServerFixture.body(template: name))
        ) { #expect($0.status == .unprocessableContent, "\(name)") }
      }
    }
  }
}
