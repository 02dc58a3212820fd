import Foundation
import Logging
import NIOPosix
import ReceiptKit
@_spi(Internals) import ReceiptModel
import ServiceLifecycle

/// The daemon's printing side, a part of it and one Service of its one ServiceGroup: a
/// ``PrintWorker`` per printer, the archive and document sweepers, and the printer watch of the
/// event feed — children of one task group, so a graceful shutdown reaches them all (each
/// worker gives its job in hand the grace). When they have all ended, the store records the
/// clean stop. The ServiceGroup shuts it down last: the listeners stop taking jobs first.
final class QueueWorkers: Service, Sendable {
  let configuration: ReceiptServer.Configuration
  let store: any JobStore
  let engine: ReceiptEngine
  let logger: Logger
  let metrics: ServerMetrics
  let hub: EventHub
  /// The printers' states for the printer watch (probed on the daemon's blocking pool).
  let look: @Sendable () async -> [PrinterResponse]
  /// The devices of printers that poll.
  let polled: PolledPrinters
  /// The workers of the run in progress (none between runs).
  private let current = Locked<[PrintWorker]>([])
  /// When a stop began (its steps are logged against it).
  let stopClock: StopClock

  init(
    configuration: ReceiptServer.Configuration, store: any JobStore, engine: ReceiptEngine, logger: Logger,
    metrics: ServerMetrics, hub: EventHub, polled: PolledPrinters, stopClock: StopClock = StopClock(),
    look: @escaping @Sendable () async -> [PrinterResponse]
  ) {
    self.stopClock = stopClock
    self.polled = polled
    self.configuration = configuration
    self.store = store
    self.engine = engine
    self.logger = logger
    self.metrics = metrics
    self.hub = hub
    self.look = look
  }

  /// Why `printer`'s worker holds its queue (paper out, cover open), nil while it can print.
  func hold(of printer: String) -> PrinterStatus? {
    current.withLock { $0.first { $0.printer.name == printer } }?.hold.withLock { $0 }
  }

  /// Wakes the worker of `printer` (the store delivers the queue's wake-ups here).
  func wake(_ printer: String) {
    current.withLock { $0.first { $0.printer.name == printer } }?.wake()
  }

  /// Takes every printer this daemon can and checks the jobs their last driver left printing,
  /// before the listeners open: a job a crash left `printing` is never shown as printing by the
  /// API or counted twice. (A printer another daemon drives is taken by its worker later.)
  func recover() async {
    for printer in configuration.printers {
      guard let recovered = try? await store.own(printer: printer.name, maxCrashes: configuration.maxCrashes)
      else { continue }
      PrintWorker.reportTaken(printer.name, recovered: recovered, logger: logger)
    }
  }

  /// Runs the workers and the sweepers until graceful shutdown; then, once every worker has
  /// ended (each after its grace), records the clean stop. The store must be open.
  func run() async throws {
    let workers = configuration.printers.map { printer in
      PrintWorker(
        printer: printer, store: store, engine: engine, templates: configuration.templates,
        maxAttempts: configuration.maxAttempts, logger: logger, metrics: metrics,
        archive: configuration.archiveDirectory, failoverAfter: configuration.failoverAfter,
        maxCrashes: configuration.maxCrashes, grace: configuration.shutdownGrace, polled: polled,
        mail: configuration.mail)
    }
    for worker in workers { polled.register(worker.printer.name) { [weak worker] in worker?.wake() } }
    current.withLock { $0 = workers }
    hub.reopen()
    var services: [any Service] = [PrintWorkers(workers: workers, clock: stopClock, logger: logger)]
    if let archive = configuration.archiveDirectory {
      let (log, days) = (logger, configuration.archiveDays)
      services.append(
        PeriodicService(description: "the archive sweeper", interval: .seconds(3600)) {
          // A walk of every archived file (a month of receipts: thousands) blocks its thread:
          // on a thread of NIO's blocking pool, not on one of the concurrency pool's two.
          let removed = (try? await NIOThreadPool.singleton.runIfActive { ArchiveFile.sweep(archive, days: days) }) ?? 0
          if removed > 0 { log.info("removed \(removed) archived documents older than \(days) days") }
        })
    }
    services.append(
      PeriodicService(description: "the document sweeper", interval: .seconds(300)) { [weak self] in
        _ = await self?.removeOldDocuments()
      })
    services.append(PrinterWatch(hub: hub, look: look))
    await withTaskGroup(of: Void.self) { group in
      for service in services {
        group.addTask {
          do { try await service.run() } catch { self.logger.error("\(type(of: service)) stopped: \(error)") }
          let name = (service as? any CustomStringConvertible)?.description ?? "\(type(of: service))"
          self.stopClock.logEnd(of: "stopped \(name)", to: self.logger)
        }
      }
    }
    current.withLock { $0 = [] }
    // The jobs still `printing` were left by this stop, not by a crash.
    await store.close()
    stopClock.logEnd(of: "closed the queue", to: logger)
  }

  /// Removes the documents of document jobs that ended more than `documentDays` before `now`
  /// (their records stay); returns how many.
  func removeOldDocuments(now: Date = Date()) async -> Int {
    let cutoff = now.addingTimeInterval(-Double(configuration.documentDays) * 86_400)
    var count = 0
    while let ended = try? await store.sweepable(.documentsEndedBefore(cutoff), limit: 100), !ended.isEmpty {
      var progressed = false
      for job in ended {
        guard let (_, dropped) = try? await store.update(job.id, { $0.dropDocument() }), dropped else { continue }
        count += 1
        progressed = true
      }
      if !progressed { break }  // the store cannot write: the next pass tries again
    }
    if count > 0 {
      logger.info("removed the documents of \(count) jobs that ended over \(configuration.documentDays) days ago")
    }
    return count
  }
}
