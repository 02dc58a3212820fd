import Foundation
import ReceiptKit
import ReceiptTestSupport
import Testing

@testable import ReceiptServer

/// A daemon that is let go of is freed with its parts: nothing it wires holds it in a cycle (the
/// store's wake-ups reach the workers, which hold the store), so its thread pools end and its
/// queue's files close. A process runs one daemon, but the tests make hundreds: before, every one
/// stayed with its threads, SQLite connections and caches until the process ended (LeakSanitizer
/// in `make sanitize` reported each).
@Suite struct ServerLifetimeTests {
  /// Weak references to a daemon's parts.
  final class Parts: @unchecked Sendable {
    weak var server: ReceiptServer?
    weak var workers: QueueWorkers?
    weak var store: AnyObject?
    weak var blocking: BlockingPool?
  }

  @Test(arguments: StoreKind.allCases) func aDaemonLetGoOfIsFreedWithItsParts(store: StoreKind) async throws {
    let parts = Parts()
    do {
      let fixture = try ServerFixture(store: store)
      // Served: a submission and a preview (drawn on the daemon's blocking pool).
      try await fixture.live { port in
        let submitted = try await offPool { try RawConnection.post(port: port, "/v1/jobs", ServerFixture.body()) }
        #expect(submitted.hasPrefix("HTTP/1.1 202"), "\(submitted.prefix(200))")
        let preview = try await offPool {
          try RawConnection.post(port: port, "/v1/render?format=png", ServerFixture.body())
        }
        #expect(preview.hasPrefix("HTTP/1.1 200"), "\(preview.prefix(200))")
      }
      // Printed by the workers, and a job submitted while they run: the store wakes the
      // printer's worker.
      try await fixture.running {
        _ = try await fixture.server.store.submit(
          JobRequest(printer: "archive", template: "receipt", data: Data(ServerFixture.order.utf8)),
          idempotencyKey: nil, now: Date())
        #expect(await fixture.wait { fixture.printed.count == 2 })
      }
      // PostgreSQL's sessions end when the store is closed (as a daemon's stop closes it).
      if store == .postgres { await fixture.server.store.close() }
      parts.server = fixture.server
      parts.workers = fixture.server.workers
      parts.store = fixture.server.store as AnyObject
      parts.blocking = fixture.server.blocking
    }
    // The parts' last work (a worker's ending task) may still be finishing: bounded wait.
    let freed = await eventually(seconds: 10, poll: 0.05) {
      parts.server == nil && parts.workers == nil && parts.store == nil && parts.blocking == nil
    }
    #expect(
      freed,
      "still held: server \(parts.server != nil), workers \(parts.workers != nil), store \(parts.store != nil), blocking pool \(parts.blocking != nil)"
    )
  }
}
