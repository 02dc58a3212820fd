import Logging
import ReceiptKit
import ServiceLifecycle

/// Every printer's ``PrintWorker`` as one Service: the workers run side by side, and a graceful
/// shutdown reaches them all at once (each worker's own handler, through the task-local shutdown
/// signal its task inherits), so their grace periods run together — a ServiceGroup would shut
/// its services down one after another, and a stop could take a grace period per printer.
struct PrintWorkers: Service, CustomStringConvertible {
  var description: String { "the printers' workers" }
  let workers: [PrintWorker]
  /// When a stop began: each worker's end is logged against it.
  let clock: StopClock
  let logger: Logger

  func run() async {
    await withTaskGroup(of: Void.self) { group in
      for worker in workers {
        group.addTask {
          await worker.run()
          clock.logEnd(of: "stopped the worker of printer \(worker.printer.name)", to: logger)
        }
      }
    }
  }
}
