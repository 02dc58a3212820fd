import Foundation
import HTTPTypes
import Hummingbird
import ReceiptTestSupport
import Testing

@testable import ReceiptServer

/// Every endpoint and error class through Hummingbird's test client (workers off, so jobs stay
/// queued unless a test starts them).
@Suite struct APITests {
  func object(_ buffer: ByteBuffer) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: Data(buffer: buffer)) as? [String: Any]) ?? [:]
  }

  @Test(arguments: StoreKind.allCases) func submitIsDurableAndIdempotent(store: StoreKind) async throws {
    let fixture = try ServerFixture(store: store)
    try await fixture.server.application().test(.router) { client in
      var id = ""
      try await client.execute(
        uri: "/v1/jobs", method: .post,
        headers: [.contentType: "application/json", HTTPField.Name("Idempotency-Key")!: "order-1042"],
        body: ByteBuffer(string: ServerFixture.body())
      ) { response in
        #expect(response.status == .accepted)
        id = object(response.body)["id"] as? String ?? ""
        #expect(response.headers[.location] == "/v1/jobs/\(id)")
        #expect(object(response.body)["state"] as? String == "queued")
      }
      // Durable before the answer: a second store on the same file (another daemon on the same
      // PostgreSQL database) sees it.
      let other = try store.open(fixture.server.configuration.database)
      #expect(try await other.job(id)?.state == .queued)
      try await client.execute(
        uri: "/v1/jobs", method: .post,
        headers: [.contentType: "application/json", HTTPField.Name("Idempotency-Key")!: "order-1042"],
        body: ByteBuffer(string: ServerFixture.body())
      ) { response in
        #expect(response.status == .ok)
        #expect(object(response.body)["id"] as? String == id)
      }
      try await client.execute(
        uri: "/v1/jobs", method: .post,
        headers: [.contentType: "application/json", HTTPField.Name("Idempotency-Key")!: "order-1042"],
        body: ByteBuffer(string: ServerFixture.body(template: "kitchen"))
      ) { response in
        #expect(response.status == .conflict)
      }
      try await client.execute(uri: "/v1/jobs/\(id)", method: .get) { response in
        #expect(response.status == .ok && object(response.body)["template"] as? String == "receipt")
      }
      try await client.execute(uri: "/v1/jobs?state=queued&limit=5", method: .get) { response in
        #expect((object(response.body)["jobs"] as? [[String: Any]])?.count == 1)
      }
      #expect(try await fixture.server.store.jobs(state: nil, printer: nil, limit: 10, before: nil).count == 1)
    }
  }

  @Test(arguments: StoreKind.allCases) func errorsAreProblemJSONWithTheField(store: StoreKind) async throws {
    let fixture = try ServerFixture(store: store)
    try await fixture.server.application().test(.router) { client in
      let cases: [(String, HTTPResponse.Status, String?)] = [
        ("not json", .badRequest, nil),
        (#"{"data": {}}"#, .badRequest, "template"),
        (#"{"template": "nope", "data": {}}"#, .unprocessableContent, "template"),
        (#"{"template": "receipt"}"#, .badRequest, "data"),
        (#"{"template": "receipt", "printer": "nope", "data": {}}"#, .unprocessableContent, "printer"),
        (#"{"template": "receipt", "copies": 500, "data": {}}"#, .badRequest, "copies"),
        (#"{"template": "receipt", "locale": "klingon", "data": {}}"#, .unprocessableContent, "locale"),
      ]
      for (body, status, field) in cases {
        try await client.execute(
          uri: "/v1/jobs", method: .post, headers: ServerFixture.json, body: ByteBuffer(string: body)
        ) { response in
          #expect(response.status == status, "\(body)")
          #expect(response.headers[.contentType] == "application/problem+json")
          #expect(object(response.body)["field"] as? String == field, "\(body)")
          #expect(object(response.body)["status"] as? Int == Int(status.code))
        }
      }
      try await client.execute(uri: "/v1/jobs/unknown", method: .get) { #expect($0.status == .notFound) }
      try await client.execute(uri: "/v1/jobs?state=weird", method: .get) { #expect($0.status == .badRequest) }
      let huge = #"{"template": "receipt", "data": {"x": ""# + String(repeating: "a", count: 2 << 20) + #""}}"#
      try await client.execute(
        uri: "/v1/jobs", method: .post, headers: ServerFixture.json, body: ByteBuffer(string: huge)
      ) { response in
        #expect(response.status == .contentTooLarge)
      }
    }
  }

  @Test(arguments: StoreKind.allCases) func cancelAndRetryFollowTheJobState(store: StoreKind) async throws {
    let fixture = try ServerFixture(store: store)
    let (job, _) = try await fixture.server.store.submit(
      JobRequest(printer: "archive", template: "receipt", data: Data("{}".utf8)), idempotencyKey: nil, now: Date())
    try await fixture.server.application().test(.router) { client in
      try await client.execute(uri: "/v1/jobs/\(job.id)", method: .delete) { response in
        #expect(response.status == .ok && object(response.body)["state"] as? String == "canceled")
      }
      // DELETE is idempotent: canceling a canceled job answers the same.
      try await client.execute(uri: "/v1/jobs/\(job.id)", method: .delete) { #expect($0.status == .ok) }
      try await client.execute(uri: "/v1/jobs/\(job.id)/retry", method: .post) { #expect($0.status == .conflict) }
      let (printed, _) = try await fixture.server.store.submit(
        JobRequest(printer: "archive", template: "receipt", data: Data("{}".utf8)), idempotencyKey: nil, now: Date())
      try await fixture.server.store.complete(printed.id, cupsJobID: nil, now: Date())
      try await client.execute(uri: "/v1/jobs/\(printed.id)", method: .delete) { #expect($0.status == .conflict) }
      try await fixture.server.store.fail(job.id, error: "template error", retryAt: nil, state: .failed, now: Date())
      try await client.execute(uri: "/v1/jobs/\(job.id)/retry", method: .post) { response in
        #expect(response.status == .ok && object(response.body)["state"] as? String == "queued")
      }
    }
  }

  @Test(arguments: StoreKind.allCases) func renderPrintersTemplatesHealthAndMetrics(store: StoreKind) async throws {
    let fixture = try ServerFixture(store: store)
    try await fixture.server.application().test(.router) { client in
      try await client.execute(
        uri: "/v1/render?format=pdf", method: .post, headers: ServerFixture.json,
        body: ByteBuffer(string: ServerFixture.body())
      ) {
        response in
        #expect(response.status == .ok && response.headers[.contentType] == "application/pdf")
        let url = try Tool.temporaryDirectory().appendingPathComponent("r.pdf")
        try Data(buffer: response.body).write(to: url)
        #expect(try Tool.run("pdftotext", [url.path, "-"]).stdout.contains("Corner Café"))
      }
      try await client.execute(
        uri: "/v1/render?format=svg", method: .post, headers: ServerFixture.json,
        body: ByteBuffer(string: ServerFixture.body())
      ) {
        #expect($0.status == .badRequest)
      }
      try await client.execute(uri: "/v1/printers", method: .get) { response in
        let printers = object(response.body)["printers"] as? [[String: Any]]
        #expect(printers?.first?["name"] as? String == "archive")
      }
      try await client.execute(uri: "/v1/templates", method: .get) { response in
        #expect((object(response.body)["templates"] as? [String])?.contains("kitchen") == true)
      }
      try await client.execute(uri: "/healthz", method: .get) { #expect($0.status == .ok) }
      try await client.execute(uri: "/readyz", method: .get) { #expect($0.status == .ok) }
      try await client.execute(uri: "/metrics", method: .get) { response in
        #expect(String(buffer: response.body).contains("receipt_render_seconds_count 1"))
      }
    }
  }

  @Test(arguments: StoreKind.allCases) func theSameKeySentConcurrentlyMakesOneJobAndOnePrint(store: StoreKind)
    async throws
  {
    let fixture = try ServerFixture(store: store)
    let ids = try await fixture.server.application().test(.router) { client in
      try await withThrowingTaskGroup(of: (HTTPResponse.Status, String).self) { group in
        for _ in 0..<24 {
          group.addTask {
            try await client.execute(
              uri: "/v1/jobs", method: .post,
              headers: [.contentType: "application/json", HTTPField.Name("Idempotency-Key")!: "till-3/order-77"],
              body: ByteBuffer(string: ServerFixture.body())
            ) { response in (response.status, object(response.body)["id"] as? String ?? "") }
          }
        }
        return try await group.reduce(into: []) { $0.append($1) }
      }
    }
    #expect(ids.filter { $0.0 == .accepted }.count == 1, "exactly one request created the job")
    #expect(ids.allSatisfy { $0.0 == .accepted || $0.0 == .ok })
    #expect(Set(ids.map(\.1)).count == 1 && !ids[0].1.isEmpty, "every answer names the same job")
    #expect(try await fixture.server.store.jobs(state: nil, printer: nil, limit: 50, before: nil).count == 1)
    // A sentinel job behind it: the printer prints in order, so once the sentinel is printed
    // everything before it has been (no sleep, no guess about "long enough").
    let sentinel = try await fixture.server.store.submit(
      JobRequest(printer: "archive", template: "receipt", data: Data(ServerFixture.order.utf8)), idempotencyKey: nil,
      now: Date()
    ).job
    try await fixture.running {
      #expect(await fixture.wait { fixture.printed.contains(PrintWorker.fileName(sentinel)) })
      #expect(fixture.printed.filter { $0.contains(ids[0].1) }.count == 1, "printed once: \(fixture.printed)")
      #expect(fixture.printed.count == 2)
    }
  }

  @Test(arguments: StoreKind.allCases) func theContractIsServedAndNamesEveryRoute(store: StoreKind) async throws {
    let fixture = try ServerFixture(store: store)
    try await fixture.server.application().test(.router) { client in
      try await client.execute(uri: "/openapi.yaml", method: .get) { response in
        #expect(response.status == .ok && response.headers[.contentType] == "application/yaml")
        let text = String(buffer: response.body)
        #expect(text.hasPrefix("openapi: 3.1"))
        for (pattern, methods) in MethodNotAllowedMiddleware<BasicRequestContext>.routes {
          let paths = ["{id}", "{name}"].map { name in
            "/" + pattern.map { $0 == "*" ? name : $0 }.joined(separator: "/") + ":"
          }
          #expect(paths.contains { text.contains("\n  \($0)\n") }, "\(paths[0]) is in the contract")
          _ = methods
        }
      }
    }
    let file = ServerFixture.templates.appendingPathComponent("../Sources/ReceiptServer/Resources/openapi.yaml")
    #expect(try Data(contentsOf: file) == Data(ReceiptServer.openAPIDocument), "the served document is the repo's")
  }
}
