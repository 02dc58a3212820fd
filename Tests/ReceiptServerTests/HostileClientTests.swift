import Foundation
import HTTPTypes
import Hummingbird
import ReceiptTestSupport
import Testing

@testable import ReceiptServer

/// What a web page, a DNS-rebinding attacker or a client holding connections can do to the
/// daemon: nothing prints, and the API keeps answering.
@Suite struct HostileClientTests {
  func jobCount(_ fixture: ServerFixture) async throws -> Int {
    try await fixture.server.store.jobs(state: nil, printer: nil, limit: 50, before: nil).count
  }

  @Test func onlyJSONBodiesAreAccepted() async throws {
    let fixture = try ServerFixture()
    try await fixture.server.application().test(.router) { client in
      for type in ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", nil] {
        var headers = HTTPFields()
        if let type { headers[.contentType] = type }
        try await client.execute(
          uri: "/v1/jobs", method: .post, headers: headers, body: ByteBuffer(string: ServerFixture.body())
        ) { response in
          #expect(response.status == .unsupportedMediaType, "\(type ?? "no type")")
          #expect(response.headers[.contentType] == "application/problem+json")
        }
      }
      try await client.execute(
        uri: "/v1/jobs", method: .post, headers: [.contentType: "application/json; charset=UTF-8"],
        body: ByteBuffer(string: ServerFixture.body())
      ) { #expect($0.status == .accepted) }
    }
    #expect(try await jobCount(fixture) == 1)
  }

  @Test func aForeignWebPageCannotPrint() async throws {
    // No CORS list: every cross-origin request is refused, simple (no-preflight) ones included.
    let fixture = try ServerFixture()
    try await fixture.server.application().test(.router) { client in
      for (origin, type) in [
        ("https://evil.example.net", "text/plain"), ("https://evil.example.net", "application/json"),
        ("null", "application/json"),
      ] {
        try await client.execute(
          uri: "/v1/jobs", method: .post, headers: [.origin: origin, .contentType: type],
          body: ByteBuffer(string: ServerFixture.body())
        ) { response in
          #expect(response.status == .forbidden, "\(origin) \(type)")
          #expect(response.headers[.accessControlAllowOrigin] == nil)
        }
      }
      try await client.execute(uri: "/v1/jobs", method: .get, headers: [.origin: "https://evil.example.net"]) {
        #expect($0.status == .forbidden, "reads too")
      }
      // The daemon's own pages (same origin) may.
      try await client.execute(
        uri: "/v1/jobs", method: .post, headers: [.origin: "http://localhost", .contentType: "application/json"],
        body: ByteBuffer(string: ServerFixture.body())
      ) { #expect($0.status == .accepted) }
    }
    #expect(try await jobCount(fixture) == 1)
  }

  @Test func previewsRunOffTheRequestThreadsAndABusyQueueIs429() async throws {
    let fixture = try ServerFixture()
    let pool = fixture.server.blocking
    let release = DispatchSemaphore(value: 0)
    // Occupy both preview threads and fill the queue with work that waits (on the pool's own
    // threads: the semaphore blocks none of the concurrency pool's).
    let total = 2 + (pool.capacity ?? 0)
    let blockers = (0..<total).map { _ in Task { try await pool.run { release.wait() } } }
    let full = await eventually(seconds: 30, poll: 0.005) { pool.load == total }
    defer { if !full { for _ in 0..<total { release.signal() } } }
    try #require(full, "the pool filled up: \(pool.load)")
    try await fixture.server.application().test(.router) { client in
      try await client.execute(uri: "/healthz", method: .get) { #expect($0.status == .ok, "health answers meanwhile") }
      try await client.execute(
        uri: "/v1/render?format=png", method: .post, headers: ServerFixture.json,
        body: ByteBuffer(string: ServerFixture.body())
      ) { response in
        #expect(response.status == .tooManyRequests)
        #expect(response.headers[.retryAfter] == "1")
      }
    }
    for _ in 0..<total { release.signal() }
    for blocker in blockers { try await blocker.value }
    #expect(pool.load == 0, "the blockers finished")
  }

  @Test func aBlockingPoolRefusesWorkBeyondItsQueue() async throws {
    let pool = BlockingPool(threads: 1, capacity: 1)
    let gate = DispatchSemaphore(value: 0)
    let running = Task { try await pool.run { gate.wait() } }
    let queued = Task { try await pool.run { 42 } }
    #expect(await eventually(seconds: 10, poll: 0.005) { pool.load == 2 })
    await #expect(throws: BlockingPool.Full.self) { try await pool.run { 0 } }
    gate.signal()
    try await running.value
    #expect(try await queued.value == 42)
    await pool.shutdown()
  }
}
