/// A failure anywhere in the pipeline, with the stage it belongs to (the CLI maps stages to exit codes).
public struct ReceiptError: Error, CustomStringConvertible, Sendable {
  /// Which part of the pipeline failed.
  public enum Stage: String, Sendable {
    /// The input file is missing or unreadable.
    case input
    /// The input is readable but invalid (encoding, template, data).
    case data
    /// Fonts, shaping, barcodes.
    case layout
    /// Drawing or encoding the output.
    case render
    /// Writing the output.
    case output
    /// The printer or CUPS is unavailable, unknown or not ready.
    case printer
    /// The print job ended without printing.
    case job
    /// Something the command needs is in use or out of reach (the queue database of a daemon).
    case unavailable
  }
  public var stage: Stage
  /// One line: what failed, where, and how to fix it.
  public var message: String
  /// Trying again cannot help (bad input, a receipt too long for the printer, a render that
  /// fails the same way every time, a printer that does not exist); the daemon fails such jobs
  /// at once instead of retrying them. Only printer, I/O and availability faults are retried.
  public var isPermanent: Bool

  /// Creates an error; input, data, layout and render errors are permanent unless `permanent`
  /// says otherwise.
  public init(_ stage: Stage, _ message: String, permanent: Bool? = nil) {
    self.stage = stage
    self.message = message
    self.isPermanent = permanent ?? [.input, .data, .layout, .render].contains(stage)
  }

  public var description: String { message }
}
