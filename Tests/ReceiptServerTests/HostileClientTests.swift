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

  @Test func previewsRunOffTheRequestThreadsAndABusyQueueIs429() async throws {
    let fixture = try ServerFixture()
    let executor = fixture.server.blocking
    let release = DispatchSemaphore(value: 0)
    // Occupy both preview threads, then fill the queue with work that waits, one at a time (a
    // blocker queued before a thread took the previous one would find the queue full), from a
    // thread of our own: tasks on the cooperative pool can start late when other tests block it.
    let total = 2 + executor.capacity
    let full = try await offPool {
      for i in 0..<total {
        try executor.enqueue { release.wait() }
        let deadline = Date().addingTimeInterval(30)
        func reached() -> Bool {
          let load = executor.load
          return load.running == min(i + 1, 2) && load.queued == max(0, i - 1)
        }
        while Date() < deadline, !reached() { Thread.sleep(forTimeInterval: 0.005) }
        guard reached() else { return false }
      }
      return true
    }
    defer {
      if !full { for _ in 0..<total { release.signal() } }
    }
    try #require(full, "the executor filled up: \(executor.load)")
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
    let drained = try await offPool {
      let deadline = Date().addingTimeInterval(30)
      while Date() < deadline, executor.load != (0, 0) { Thread.sleep(forTimeInterval: 0.01) }
      return executor.load == (0, 0)
    }
    #expect(drained, "the blockers finished: \(executor.load)")
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
