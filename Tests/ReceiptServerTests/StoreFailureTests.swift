import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ReceiptKit
import ReceiptTestSupport
import Testing

@testable import ReceiptServer

#if canImport(Glibc)
  import Glibc
#endif

/// Durability settings, crash counting, one daemon per file, and a full disk: a real SQLite file
/// on a real (small) file system.
@Suite(.serialized) struct StoreFailureTests {
  @Test func everyConnectionSyncsFully() throws {
    let fixture = try ServerFixture()
    #expect(try (fixture.server.store as! SQLiteJobStore).synchronousMode() == 2, "PRAGMA synchronous = FULL")
  }

  @Test func aJobThatKeepsCrashingTheDaemonDiesAfterMaxCrashes() throws {
    let fixture = try ServerFixture { $0.maxCrashes = 3 }
    let store = fixture.server.store
    let job = try store.submit(
      JobRequest(printer: "archive", template: "receipt", data: Data("{}".utf8)), idempotencyKey: nil, now: Date()
    ).job
    for crash in 1...3 {
      #expect(try store.claimNext(printer: "archive", now: Date())?.id == job.id, "claimed before crash \(crash)")
      // The daemon dies here (no clean shutdown recorded); the next start recovers.
      let recovered = try store.recover(maxCrashes: 3, now: Date())
      #expect(recovered.map(\.crashes) == [crash])
      #expect(recovered.first?.state == (crash < 3 ? .queued : .dead))
    }
    let dead = try #require(try store.job(job.id))
    #expect(dead.error?.contains("stopped 3 times while rendering this job") == true)
    #expect(try store.claimNext(printer: "archive", now: Date()) == nil, "a dead job does not block the queue")
  }

  @Test func aJobCUPSAlreadyHasIsNotBlamedForACrash() throws {
    let fixture = try ServerFixture { $0.maxCrashes = 1 }
    let store = fixture.server.store
    let job = try store.submit(
      JobRequest(printer: "archive", template: "receipt", data: Data("{}".utf8)), idempotencyKey: nil, now: Date()
    ).job
    _ = try store.claimNext(printer: "archive", now: Date())
    try store.progress(job.id, cupsJobID: 42, printerState: "pending", now: Date())  // sent, being followed
    let recovered = try store.recover(maxCrashes: 1, now: Date())
    #expect(recovered.map(\.state) == [.queued] && recovered[0].crashes == 0)
  }

  @Test func aJobWithItsPrinterIsNotBlamedForACrash() throws {
    let fixture = try ServerFixture { $0.maxCrashes = 1 }
    let store = fixture.server.store
    let raw = try store.submit(
      JobRequest(printer: "archive", template: "receipt", data: Data("{}".utf8)), idempotencyKey: nil, now: Date()
    ).job
    _ = try store.claimNext(printer: "archive", now: Date())
    #expect(try store.job(raw.id)?.stage == .rendering)
    _ = try store.markSent(raw.id, processID: "AB12", now: Date())  // sent to a raw printer, awaiting its answer
    #expect(try store.job(raw.id)?.stage == .printer)
    var recovered = try store.recover(maxCrashes: 1, now: Date())
    #expect(recovered.map(\.state) == [.queued] && recovered[0].crashes == 0 && recovered[0].stage == nil)
    _ = try store.claimNext(printer: "archive", now: Date())
    try store.markHandedOver(raw.id, now: Date())  // a directory printer's file being written
    recovered = try store.recover(maxCrashes: 1, now: Date())
    #expect(recovered.map(\.state) == [.queued] && recovered[0].crashes == 0)
  }

  @Test func aCleanShutdownIsNotACrash() throws {
    let fixture = try ServerFixture { $0.maxCrashes = 1 }
    let store = fixture.server.store
    let job = try store.submit(
      JobRequest(printer: "archive", template: "receipt", data: Data("{}".utf8)), idempotencyKey: nil, now: Date()
    ).job
    _ = try store.claimNext(printer: "archive", now: Date())
    try store.markCleanShutdown()
    let recovered = try store.recover(maxCrashes: 1, now: Date())
    #expect(recovered.map(\.id) == [job.id] && recovered[0].state == .queued && recovered[0].crashes == 0)
  }

  @Test func oneDaemonPerQueueFile() throws {
    let first = try ServerFixture()
    try first.server.start()
    defer { first.server.stop() }
    let second = try ReceiptServer(configuration: first.server.configuration)
    #expect {
      try second.start()
    } throws: { error in
      let error = error as? ReceiptError
      return error?.stage == .unavailable && error?.message.contains("pid \(getpid())") == true
    }
    first.server.stop()
    #expect(throws: Never.self) { try second.start() }
    second.stop()
  }

  /// A tmpfs of `megabytes` (we are root in the tests), unmounted by `body`'s end.
  func withSmallDisk(megabytes: Int, _ body: (URL) async throws -> Void) async throws {
    let mount = try Tool.temporaryDirectory()
    let result = try Tool.run("mount", ["-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", mount.path])
    try #require(result.status == 0, "mount tmpfs: \(result.stderr)")
    defer { _ = try? Tool.run("umount", ["-l", mount.path]) }
    try await body(mount)
  }

  /// Fills a file system up to the last byte with one file; returns it.
  func fill(_ directory: URL) throws -> URL {
    let filler = directory.appendingPathComponent("filler")
    _ = try Tool.run("dd", ["if=/dev/zero", "of=\(filler.path)", "bs=4096"])
    return filler
  }

  @Test func aFullDiskIs503WithRetryAfterAndTheDaemonRecoversWithoutARestart() async throws {
    try await withSmallDisk(megabytes: 4) { disk in
      let fixture = try ServerFixture(database: disk.appendingPathComponent("queue.sqlite"))
      let store = fixture.server.store
      // A job claimed (printing) before the disk fills, printed while it is full.
      let first = try store.submit(
        JobRequest(printer: "archive", template: "receipt", data: Data(ServerFixture.order.utf8)), idempotencyKey: nil,
        now: Date()
      ).job
      let second = try store.submit(
        JobRequest(printer: "archive", template: "receipt", data: Data(ServerFixture.order.utf8)), idempotencyKey: nil,
        now: Date()
      ).job
      let claimed = try #require(try store.claimNext(printer: "archive", now: Date()))
      let filler = try fill(disk)
      try await fixture.server.application().test(.router) { client in
        try await client.execute(
          uri: "/v1/jobs", method: .post, headers: ServerFixture.json, body: ByteBuffer(string: ServerFixture.body())
        ) { response in
          #expect(response.status == .serviceUnavailable)
          #expect(response.headers[.retryAfter] == "5")
          #expect(response.headers[.contentType] == "application/problem+json")
          #expect(String(buffer: response.body).contains("full"), "\(String(buffer: response.body))")
        }
        try await client.execute(uri: "/readyz", method: .get) { #expect($0.status == .serviceUnavailable) }
        try await client.execute(uri: "/healthz", method: .get) { #expect($0.status == .ok, "the process answers") }
      }
      // The worker prints the claimed job (to a disk with space) and cannot record it: it keeps
      // trying and takes nothing else meanwhile.
      let worker = PrintWorker(
        printer: fixture.server.configuration.printers[0], store: store, engine: fixture.server.engine,
        templates: ServerFixture.templates, maxAttempts: 5, logger: fixture.server.logger,
        metrics: fixture.server.metrics)
      let done = DispatchSemaphore(value: 0)
      Thread.detachNewThread {
        worker.process(claimed)
        done.signal()
      }
      let printed = try await offPool { fixture.wait { fixture.printed.count == 1 } }
      #expect(printed, "printed while the disk is full")
      try await Task.sleep(for: .seconds(1))
      #expect(try store.job(first.id)?.state == .printing, "not recorded yet")
      try FileManager.default.removeItem(at: filler)
      let recorded = try await offPool { done.wait(timeout: .now() + 30) == .success }
      #expect(recorded, "recorded once the disk has room")
      #expect(try store.job(first.id)?.state == .completed)
      try await fixture.server.application().test(.router) { client in
        try await client.execute(uri: "/readyz", method: .get) { #expect($0.status == .ok) }
        try await client.execute(
          uri: "/v1/jobs", method: .post, headers: ServerFixture.json, body: ByteBuffer(string: ServerFixture.body())
        ) { #expect($0.status == .accepted) }
      }
      // The queue moves on without a restart.
      try fixture.server.start()
      defer { fixture.server.stop() }
      let moved = try await offPool { try fixture.wait { try store.job(second.id)?.state == .completed } }
      #expect(moved)
    }
  }
}
