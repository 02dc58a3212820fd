import Foundation
import HTTPTypes
import Hummingbird
import Logging
import ReceiptKit
@_spi(Internals) import ReceiptModel
import ReceiptTestSupport
import ServiceLifecycle
import Testing

@testable import ReceiptServer

/// The job stores the daemon's suites run against.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
  case sqlite, postgres
  var testDescription: String { rawValue }

  /// A fresh, empty queue of this kind: a SQLite file in `directory`, or a new database on the
  /// test process's PostgreSQL cluster.
  func database(in directory: URL) throws -> String {
    switch self {
    case .sqlite: directory.appendingPathComponent("queue.sqlite").path
    case .postgres: try PostgresCluster.shared().createDatabase()
    }
  }

  /// Another store on the same queue (as a second daemon, or the daemon after a restart, would
  /// open it).
  func open(_ database: String) throws -> any JobStore {
    switch self {
    case .sqlite: try SQLiteJobStore(path: database)
    case .postgres: try PostgresJobStore(url: PostgresURL(database)).started()
    }
  }
}

/// A daemon on a fresh queue (a SQLite file unless told) with a directory printer (and
/// optionally more printers).
struct ServerFixture {
  let directory: URL
  let archive: URL
  let server: ReceiptServer
  /// The kind of store the daemon's queue is.
  let kind: StoreKind

  static var templates: URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Templates")
      .standardizedFileURL
  }

  init(
    extraPrinters: [PrinterConfig] = [], maxAttempts: Int = 8, database: URL? = nil, store: StoreKind = .sqlite,
    configure: (inout ReceiptServer.Configuration) -> Void = { _ in }
  ) throws {
    directory = try Tool.temporaryDirectory()
    archive = directory.appendingPathComponent("archive")
    try FileManager.default.createDirectory(at: archive, withIntermediateDirectories: true)
    var configuration = ReceiptServer.Configuration(
      port: 0, database: try database?.path ?? store.database(in: directory), templates: Self.templates,
      printers: [PrinterConfig(name: "archive", target: .directory(archive))] + extraPrinters, maxAttempts: maxAttempts)
    // PostgreSQL's default archive is `./receipt-archive`: the test's own directory, not the
    // checkout the tests run in.
    if store == .postgres { configuration.archive = directory.appendingPathComponent("receipt-archive") }
    configure(&configuration)
    server = try ReceiptServer(configuration: configuration)
    server.store.started()
    kind = store
  }

  /// The daemon dies (no clean stop: on PostgreSQL its sessions end, as the kernel ends them at
  /// `kill -9`, and with them its printers) and another starts on the same queue: the new daemon,
  /// not started yet.
  func crashAndRestart() async throws -> ReceiptServer {
    if kind == .postgres { await server.store.close() }
    let restarted = try ReceiptServer(configuration: server.configuration)
    restarted.store.started()
    return restarted
  }

  /// The headers of a JSON body.
  static let json: HTTPFields = [.contentType: "application/json"]

  /// The small example order.
  static var order: String {
    try! String(contentsOf: templates.appendingPathComponent("Examples/small.json"), encoding: .utf8)
  }

  static func body(template: String = "receipt", printer: String? = nil, data: String = order) -> String {
    "{\"template\": \"\(template)\"" + (printer.map { ", \"printer\": \"\($0)\"" } ?? "") + ", \"data\": \(data)}"
  }

  /// Files the directory printer wrote, in name (= print) order.
  var printed: [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: archive.path)) ?? []).filter { $0.hasSuffix(".pdf") }
      .sorted()
  }

  /// Waits (at most `seconds`, the test's task suspended) until `condition` holds.
  func wait(seconds: Double = 30, until condition: () async throws -> Bool) async rethrows -> Bool {
    try await eventually(seconds: seconds, poll: 0.05, condition)
  }

  /// Runs the daemon's workers (``ReceiptServer/start()``) while `body` runs, then stops them
  /// (``ReceiptServer/stop()``), also when `body` throws.
  func running<T>(_ body: () async throws -> T) async throws -> T {
    try await server.start()
    do {
      let result = try await body()
      await server.stop()
      return result
    } catch {
      await server.stop()
      throw error
    }
  }

  /// Runs the daemon's HTTP server on a free loopback port (workers as the test set them) while
  /// `body` runs, then shuts it down.
  func live<T: Sendable>(_ body: @escaping @Sendable (Int) async throws -> T) async throws -> T {
    let port = AsyncStream.makeStream(of: Int.self)
    let app = server.application { port.continuation.yield($0) }
    let group = ServiceGroup(services: [app], logger: Logger(label: "test"))
    return try await withThrowingTaskGroup(of: Void.self) { tasks in
      tasks.addTask { try await group.run() }
      var ports = port.stream.makeAsyncIterator()
      guard let number = await ports.next() else { throw RigError("the server did not start") }
      do {
        let result = try await body(number)
        await group.triggerGracefulShutdown()
        try await tasks.waitForAll()
        return result
      } catch {
        await group.triggerGracefulShutdown()
        throw error
      }
    }
  }
}

/// Shorthands the tests use on any store.
extension JobStore {
  /// Runs the store's background work (PostgreSQL's pool, migration and listener) on a task of
  /// its own, as the daemon's `run` does in its task group; a second call does nothing.
  @discardableResult
  func started() -> Self {
    if let work = backgroundWork { Task { await work() } }
    return self
  }

  /// `accept` with the tests' spelling: a job stored (or found by its key).
  @discardableResult
  func submit(_ request: JobRequest, idempotencyKey: String?, now: Date = Date()) async throws -> (
    job: Job, created: Bool
  ) {
    try await accept(request, idempotencyKey: idempotencyKey)
  }

  /// Jobs left `printing`, oldest first.
  func interrupted() async throws -> [Job] {
    try await jobs(state: .printing, printer: nil, limit: 1000, before: nil).sorted { $0.sequence < $1.sequence }
  }
}

/// Runs `server`'s workers while `body` runs, then stops them, also when `body` throws.
func running<T>(_ server: ReceiptServer, _ body: () async throws -> T) async throws -> T {
  try await server.start()
  do {
    let result = try await body()
    await server.stop()
    return result
  } catch {
    await server.stop()
    throw error
  }
}

/// The daemon's printing side run without its listeners, as the tests drive it: ``QueueWorkers``
/// in a ServiceGroup of its own on a task the test owns (the daemon runs every part in one group:
/// ``ReceiptServer/run(onServerRunning:onIPPRunning:)``). `start` returns once the store is open
/// and the workers run; `stop` gives them their grace and returns after the clean stop.
extension ReceiptServer {
  private static let running = Locked<[ObjectIdentifier: (group: ServiceGroup, task: Task<Void, Never>)]>([:])

  func start() async throws {
    store.started()
    try await openStore()
    let id = ObjectIdentifier(self)
    guard Self.running.withLock({ $0[id] }) == nil else { return }
    var configuration = ServiceGroupConfiguration(
      services: [.init(service: workers)], gracefulShutdownSignals: [], logger: logger)
    let bound = Duration.seconds(self.configuration.shutdownGrace + 5)
    configuration.maximumGracefulShutdownDuration = bound
    configuration.maximumCancellationDuration = bound
    let group = ServiceGroup(configuration: configuration)
    let task = Task<Void, Never> { _ = try? await group.run() }
    Self.running.withLock { $0[id] = (group, task) }
  }

  func stop() async {
    hub.close()
    guard let (group, task) = Self.running.withLock({ $0.removeValue(forKey: ObjectIdentifier(self)) }) else { return }
    await group.triggerGracefulShutdown()
    await task.value
  }
}
