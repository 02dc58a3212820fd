import Foundation
import HTTPTypes
import Hummingbird
import ReceiptKit
import ReceiptTestSupport
import Testing

@testable import ReceiptServer

#if canImport(Glibc)
  import Glibc
#endif

/// Durability settings, one daemon per file, and a full disk: a real SQLite file on a real (small)
/// file system. (Crash counting runs on both stores: `QueueContractTests`.)
@Suite(.serialized) struct StoreFailureTests {
  @Test func everyConnectionSyncsFully() async throws {
    let fixture = try ServerFixture()
    #expect(try await (fixture.server.store as! SQLiteJobStore).synchronousMode() == 2, "PRAGMA synchronous = FULL")
  }

  @Test func oneDaemonPerQueueFile() async throws {
    let first = try ServerFixture()
    try await first.running {
      let second = try ReceiptServer(configuration: first.server.configuration)
      await #expect {
        try await second.start()
      } throws: { error in
        let error = error as? ReceiptError
        return error?.stage == .unavailable && error?.message.contains("pid \(getpid())") == true
      }
      await first.server.stop()
      await #expect(throws: Never.self) { try await second.start() }
      await second.stop()
    }
  }

  /// Runs a worker on a job and notes when it is done.
  static func process(_ job: Job, with worker: PrintWorker, marking done: Collected<Bool>) async {
    await worker.process(job)
    done.add(true)
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
      let first = try await store.submit(
        JobRequest(printer: "archive", template: "receipt", data: Data(ServerFixture.order.utf8)), idempotencyKey: nil,
        now: Date()
      ).job
      let second = try await store.submit(
        JobRequest(printer: "archive", template: "receipt", data: Data(ServerFixture.order.utf8)), idempotencyKey: nil,
        now: Date()
      ).job
      #expect(try await store.own(printer: "archive", maxCrashes: 3) == [], "this daemon drives the printer")
      let claimed = try #require(try await store.claimNext(printer: "archive", now: Date()))
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
      let done = Collected<Bool>()
      async let processing: Void = Self.process(claimed, with: worker, marking: done)
      #expect(await fixture.wait { fixture.printed.count == 1 }, "printed while the disk is full")
      #expect(try await store.job(first.id)?.state == .printing, "not recorded yet")
      try FileManager.default.removeItem(at: filler)
      let recorded = await eventually(seconds: 30) { !done.all.isEmpty }
      await processing
      #expect(recorded, "recorded once the disk has room")
      #expect(try await store.job(first.id)?.state == .completed)
      try await fixture.server.application().test(.router) { client in
        try await client.execute(uri: "/readyz", method: .get) { #expect($0.status == .ok) }
        try await client.execute(
          uri: "/v1/jobs", method: .post, headers: ServerFixture.json, body: ByteBuffer(string: ServerFixture.body())
        ) { #expect($0.status == .accepted) }
      }
      // The queue moves on without a restart.
      try await fixture.running { () async throws in
        #expect(try await fixture.wait { try await store.job(second.id)?.state == .completed })
      }
    }
  }
}
