public import Foundation
package import ReceiptLayout

/// A directory that receives one PDF per job (archives, tests, a shared folder another system
/// prints from). Files are written atomically and durably (``DurableFile``): a file exists only
/// when complete, and survives a power cut once `submit` returns.
public struct DirectoryPrinter: Printer {
  public let directory: URL

  /// A directory printer writing into `directory`.
  public init(directory: URL) {
    self.directory = directory
  }

  public var name: String { "dir:\(directory.path)" }
  public var capabilities: PrinterCapabilities { PrinterCapabilities(format: .pdf) }

  /// Idle when the directory is writable, else unavailable with the reason.
  public func status() throws -> PrinterStatus {
    FileManager.default.isWritableFile(atPath: directory.path)
      ? PrinterStatus(state: .idle)
      : PrinterStatus(state: .unavailable, reasons: [.other], message: "\(directory.path) is not a writable directory")
  }

  /// The file a job is written to: its name, with `/` replaced, and `.pdf`.
  public func file(for job: PrintJob) -> URL {
    let safe = job.name.replacingOccurrences(of: "/", with: "_")
    return directory.appendingPathComponent(safe.hasSuffix(".pdf") ? safe : safe + ".pdf")
  }

  /// Whether the job's file is there: it was printed (a file exists only when complete).
  public func hasPrinted(_ job: PrintJob) -> Bool {
    FileManager.default.fileExists(atPath: file(for: job).path)
  }

  /// The job's PDF, one copy: the file is the receipt as printed once; copies are for paper.
  package func encode(_ receipt: LaidOutReceipt, job: PrintJob) throws -> Data {
    try capabilities.format.encode(receipt, caches: job.renderCaches)
  }

  /// Writes the job's PDF, unless a file of the job's name is there already (it was printed
  /// before a crash: a file exists only when complete). Returns nil: no job ids.
  package func send(_ document: Data, of receipt: LaidOutReceipt, job: PrintJob) throws -> Int? {
    if hasPrinted(job) { return nil }
    try DurableFile.write(document, to: file(for: job).path)
    return nil
  }
}
