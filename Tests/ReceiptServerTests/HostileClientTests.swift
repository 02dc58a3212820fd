import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ReceiptTestSupport
import Testing

@testable import ReceiptServer

/// What a web page, a DNS-rebinding attacker or a client holding connections can do to the
/// daemon: nothing prints, and the API keeps answering.
@Suite struct HostileClientTests {
  func jobCount(_ fixture: ServerFixture) throws -> Int {
    try fixture.server.store.jobs(state: nil, printer: nil, limit: 50, before: nil).count
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
    #expect(try jobCount(fixture) == 1)
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
    #expect(try jobCount(fixture) == 1)
  }

  @Test func dnsRebindingIsRefusedByTheHostCheck() async throws {
    let fixture = try ServerFixture { $0.hostNames = ["pos-server.local"] }
    try await fixture.live { port in
      let body = ServerFixture.body()
      func post(host: String, origin: String? = nil) async throws -> String {
        try await offPool {
          try RawConnection.request(
            port: port,
            "POST /v1/jobs HTTP/1.1\r\nHost: \(host)\r\n" + (origin.map { "Origin: \($0)\r\n" } ?? "")
              + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
          )
        }
      }
      // The attacker's name resolves to 127.0.0.1; its page is "same origin" with itself.
      let rebound = try await post(host: "attacker.example:\(port)", origin: "http://attacker.example:\(port)")
      #expect(rebound.hasPrefix("HTTP/1.1 421"), "\(rebound.prefix(200))")
      #expect(try await post(host: "127.0.0.1:\(port)").hasPrefix("HTTP/1.1 202"))
      #expect(try await post(host: "localhost:\(port)").hasPrefix("HTTP/1.1 202"))
      #expect(try await post(host: "pos-server.local:\(port)").hasPrefix("HTTP/1.1 202"))
    }
    #expect(try jobCount(fixture) == 3)
  }

  @Test func slowAndIdleConnectionsCannotHoldTheAPI() async throws {
    let fixture = try ServerFixture {
      $0.maxConnections = 16
      $0.headerTimeout = 1
      $0.idleTimeout = 2
    }
    try await fixture.live { port in
      // A request head trickled in never completes: the connection is closed.
      let closed = try await offPool {
        let slow = try RawConnection(port: port)
        try slow.send("GET /healthz HTTP/1.1\r\nHo")
        return slow.readUntilClosed(timeout: 10).closed
      }
      #expect(closed, "a request head that does not arrive in time closes the connection")
      // Many more idle connections than the cap, holding no request: the API still answers,
      // at once (the idle ones are closed to make room, not waited for).
      let (answer, open) = try await offPool {
        let idle = try (0..<200).map { _ in try RawConnection(port: port) }
        Thread.sleep(forTimeInterval: 0.3)  // let the daemon accept them all
        let answer = try RawConnection.request(
          port: port, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", timeout: 5)
        return withExtendedLifetime(idle) { (answer, idle.count) }
      }
      #expect(
        answer.hasPrefix("HTTP/1.1 200"), "answered while \(open) idle connections were open: \(answer.prefix(80))")
      #expect(fixture.server.connections.count <= 16 + 1)
    }
  }

  @Test func previewsRunOffTheRequestThreadsAndABusyQueueIs429() async throws {
    let fixture = try ServerFixture()
    let release = DispatchSemaphore(value: 0)
    // Occupy both preview threads and fill the queue with work that waits.
    let capacity = fixture.server.blocking.capacity
    let blockers = Task {
      try await withThrowingTaskGroup(of: Void.self) { group in
        for _ in 0..<(2 + capacity) { group.addTask { try await fixture.server.blocking.run { release.wait() } } }
        try await group.waitForAll()
      }
    }
    defer {
      for _ in 0..<(2 + capacity) { release.signal() }
    }
    try await Task.sleep(for: .milliseconds(200))
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
    for _ in 0..<(2 + capacity) { release.signal() }
    try await blockers.value
  }

  @Test func aBlockingExecutorRefusesWorkBeyondItsQueue() async throws {
    let executor = BlockingExecutor(name: "test", threads: 1, capacity: 1)
    let gate = DispatchSemaphore(value: 0)
    let running = Task { try await executor.run { gate.wait() } }
    try await Task.sleep(for: .milliseconds(100))
    let queued = Task { try await executor.run { 42 } }
    try await Task.sleep(for: .milliseconds(100))
    await #expect(throws: BlockingExecutor.Full.self) { try await executor.run { 0 } }
    gate.signal()
    try await running.value
    #expect(try await queued.value == 42)
    executor.shutdown(threads: 1)
  }
}
