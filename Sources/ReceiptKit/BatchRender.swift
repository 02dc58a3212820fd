public import Foundation

/// One input of a batch: an order (or text file) to render to a file of its own.
public struct BatchItem: Sendable {
  /// What errors and progress call it: its path, or `stdin:LINE`.
  public var label: String
  /// Its output's name in the output directory, without the extension.
  public var name: String
  /// Order JSON, bound into a template (else a UTF-8 text file).
  public var isOrder: Bool
  /// Its bytes, read when a worker takes it (a file is read then, not before).
  public var read: @Sendable () throws -> Data

  public init(label: String, name: String, isOrder: Bool, read: @escaping @Sendable () throws -> Data) {
    self.label = label
    self.name = name
    self.isOrder = isOrder
    self.read = read
  }
}

/// How one input of a batch ended.
public struct BatchOutcome: Sendable {
  public var item: String
  /// The files written (a PNG has one per page).
  public var files: [String] = []
  public var warnings: [String] = []
  /// Why it was not rendered; nil when it was.
  public var error: ReceiptError?
}

/// Many receipts in one process: `receipt render ORDER… -o DIR/` and `-o DIR/` with JSON Lines
/// on stdin.
///
/// One worker per core, each with an engine of its own (layout engines lay out one document at
/// a time): fonts, shaping caches and hyphenation dictionaries load once per worker and stay
/// warm for every receipt after. Inputs are taken one at a time as workers free up, so memory
/// stays bounded whatever the count (a receipt in hand per worker). Each receipt is rendered
/// and written exactly as one-shot `receipt render` would (``OutputFile``: atomic; made durable
/// together at the end); an input that fails is reported and the others go on.
public struct BatchRender: Sendable {
  /// The directory the outputs go to (created if missing).
  public var directory: URL
  public var format: OutputFormat
  /// Workers (default: the machine's cores).
  public var workers: Int
  /// Makes an input's rendering; called on the worker's own engine.
  public var render: @Sendable (ReceiptEngine, BatchItem, Data) throws -> RenderedReceipt

  public init(
    directory: URL, format: OutputFormat, workers: Int = ProcessInfo.processInfo.activeProcessorCount,
    render: @escaping @Sendable (ReceiptEngine, BatchItem, Data) throws -> RenderedReceipt
  ) {
    self.directory = directory
    self.format = format
    self.workers = max(1, workers)
    self.render = render
  }

  /// Renders every item `next` gives (called under a lock, one item at a time, until nil);
  /// `done` hears each outcome as it happens (under the same lock, so in one order). Returns
  /// how many failed.
  @discardableResult
  public func run(next: @escaping @Sendable () -> BatchItem?, done: @escaping @Sendable (BatchOutcome) -> Void)
    throws -> Int
  {
    do {
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    } catch {
      throw ReceiptError(.output, "cannot create \(directory.path): \(ReceiptEngine.reason(error))")
    }
    let engines = try (0..<workers).map { _ in try ReceiptEngine() }
    let lock = NSLock()
    nonisolated(unsafe) var failed = 0
    DispatchQueue.concurrentPerform(iterations: workers) { worker in
      let engine = engines[worker]
      while let item = lock.withLock({ next() }) {
        let outcome = self.renderOne(item, engine: engine)
        lock.withLock {
          if outcome.error != nil { failed += 1 }
          done(outcome)
        }
      }
    }
    // Each file was replaced atomically; one sync makes them all durable before the batch
    // reports done (a file a time would be two fsyncs per receipt).
    try OutputFile.syncFileSystem(of: directory.path)
    return failed
  }

  private func renderOne(_ item: BatchItem, engine: ReceiptEngine) -> BatchOutcome {
    var outcome = BatchOutcome(item: item.label)
    do {
      let rendered = try render(engine, item, try item.read())
      outcome.warnings = rendered.warnings
      // A path string: appending to a file URL stats the result (a system call a receipt).
      let first = directory.path + "/" + item.name + "." + format.fileExtension
      let files = OutputFile.names(first, count: rendered.parts.count)
      // Only regular files are replaced (a symlink, FIFO or device at an output name is an
      // error for this input): a batch must not write through a link placed in its directory.
      for (file, data) in zip(files, rendered.parts) {
        try OutputFile.write(data, to: file, durable: false, regularOnly: true)
      }
      outcome.files = files
    } catch let error as ReceiptError {
      outcome.error = error
    } catch {
      outcome.error = ReceiptError(.render, "\(error)")
    }
    return outcome
  }
}
