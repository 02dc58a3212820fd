import Foundation
import ReceiptTestSupport
import Testing

@testable import ReceiptServer

/// No handler blocks a thread of the concurrency pool: while PostgreSQL holds the queue's table
/// locked for seconds (a long migration, a stuck transaction), a submission waits — suspended —
/// and `/healthz` and previews, which do not need the database, answer at once; the submission is
/// stored when the lock goes.
@Suite(.timeLimit(.minutes(2))) struct StoreStallTests {
  @Test func aLockedDatabaseHoldsSubmissionsNotTheDaemon() async throws {
    let fixture = try ServerFixture(store: .postgres)
    let database = PostgresCluster.databaseName(fixture.server.configuration.database)
    try await fixture.live { port in
      // A warm connection first (the pool opens its connections on demand).
      let first = try await offPool { try RawConnection.post(port: port, "/v1/jobs", ServerFixture.body()) }
      #expect(first.hasPrefix("HTTP/1.1 202"), "\(first.prefix(200))")
      // Another session takes the job table and keeps it until this test cancels it (or for
      // 60 s): every answer before the cancel is an answer while the table was locked, however
      // slow the machine (under ThreadSanitizer one /healthz takes seconds).
      let lockSQL = "BEGIN; LOCK TABLE job IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(60); COMMIT;"
      let asked = Date()
      let lock = Task { try? await offPool { try PostgresCluster.shared().psql(lockSQL, database: database) } }
      let holder =
        "FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE c.relname = 'job' "
        + "AND l.mode = 'AccessExclusiveLock' AND l.granted"
      #expect(
        try await eventually(seconds: 20, poll: 0.02) {
          try PostgresCluster.shared().psql("SELECT count(*) \(holder)", database: database) == "1"
        }, "the lock is held")
      let held = Date()
      let submission = Task {
        try await offPool { try RawConnection.post(port: port, "/v1/jobs", ServerFixture.body()) }
      }
      // Meanwhile, health and previews answer, many times. A handler held by the lock would not
      // answer before the cancel (its request times out).
      var answeredWhileLocked = 0
      while Date().timeIntervalSince(held) < 2.5 || answeredWhileLocked == 0, Date().timeIntervalSince(asked) < 40 {
        let health = try await offPool {
          try RawConnection.request(
            port: port, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", timeout: 10)
        }
        #expect(health.hasPrefix("HTTP/1.1 200"))
        answeredWhileLocked += 1
      }
      let preview = try await offPool {
        try RawConnection.post(port: port, "/v1/render?format=pdf", ServerFixture.body(), timeout: 30)
      }
      #expect(preview.hasPrefix("HTTP/1.1 200"), "a preview needs no database")
      #expect(Date().timeIntervalSince(asked) < 60, "the lock cannot have run out before the answers")
      #expect(answeredWhileLocked >= 1, "/healthz answered \(answeredWhileLocked) times while the table was locked")
      #expect(
        try await offPool {
          try PostgresCluster.shared().psql("SELECT pg_cancel_backend(l.pid) \(holder)", database: database)
        } == "t", "the lock is let go")
      let stored = try await submission.value
      #expect(stored.hasPrefix("HTTP/1.1 202"), "stored once the lock went: \(stored.prefix(200))")
      #expect(Date().timeIntervalSince(held) >= 1, "it waited for the lock")
      _ = await lock.value
    }
  }
}
