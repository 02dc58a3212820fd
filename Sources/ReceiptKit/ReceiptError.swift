import ReceiptLayout
import ReceiptPrint
import ReceiptRender

/// A failure anywhere in the pipeline: the stage it belongs to, one line for people, and the
/// typed error underneath. The stage decides the CLI's exit code (``Stage/exitCode``, the one
/// table) and the daemon's HTTP status.
public struct ReceiptError: Error, CustomStringConvertible, Sendable {
  /// Which part of the pipeline failed.
  public enum Stage: String, Sendable, CaseIterable {
    /// The input file is missing or unreadable.
    case input
    /// The input is readable but invalid (encoding, template, data, images, too long for the printer).
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

    /// The exit code of `receipt` for the stage (sysexits.h): the one table, documented in the
    /// README.
    public var exitCode: Int32 {
      switch self {
      case .input: 66  // EX_NOINPUT
      case .data: 65  // EX_DATAERR
      case .layout, .render: 70  // EX_SOFTWARE
      case .output: 73  // EX_CANTCREAT
      case .printer, .unavailable: 69  // EX_UNAVAILABLE
      case .job: 75  // EX_TEMPFAIL
      }
    }
  }
  public var stage: Stage
  /// One line: what failed, where, and how to fix it.
  public var message: String
  /// Trying again cannot help (bad input, a receipt too long for the printer, a render that
  /// fails the same way every time, a printer that does not exist); the daemon fails such jobs
  /// at once instead of retrying them. Only printer, I/O and availability faults are retried.
  public var isPermanent: Bool
  /// The typed error this one reports (``TemplateError``, `LayoutError`, `RenderError`,
  /// `PrintError`, …), nil when the facade itself found the problem.
  public var underlying: (any Error & Sendable)?

  /// Creates an error; input, data, layout and render errors are permanent unless `permanent`
  /// says otherwise.
  public init(_ stage: Stage, _ message: String, permanent: Bool? = nil, underlying: (any Error & Sendable)? = nil) {
    self.stage = stage
    self.message = message
    self.isPermanent = permanent ?? [.input, .data, .layout, .render].contains(stage)
    self.underlying = underlying
  }

  public var description: String { message }
}

extension ReceiptError {
  /// A printing failure: a job that ended unprinted is a `.job` error, an encoder's a `.render`
  /// one, a write error `.output`, the rest `.printer`; ``PrintError/isPermanent`` decides retries.
  init(_ error: PrintError) {
    let stage: Stage =
      switch error {
      case .jobFailed, .interrupted, .notConfirmed, .abandoned: .job
      case .encoding: .render
      case .output: .output
      case .badAddress, .badModel, .document, .pollsTheDaemon, .mailThroughTheDaemon: .data
      default: .printer
      }
    self.init(stage, "\(error)", permanent: error.isPermanent, underlying: error)
  }

  /// A rendering failure: a page too large for raster output is the input's fault (data), the
  /// rest render failures.
  init(_ error: RenderError) {
    switch error {
    case .tooLarge, .tooManyDots, .document: self.init(.data, "\(error)", underlying: error)
    default: self.init(.render, "\(error)", underlying: error)
    }
  }

  /// A layout failure: bad data (an image, barcode data) or a layout fault.
  init(_ error: LayoutError) {
    self.init(error.isDataError ? .data : .layout, "\(error)", underlying: error)
  }

  /// Runs `body`, turning the pipeline's typed errors into a ``ReceiptError`` that keeps them.
  static func wrapping<T>(_ body: () throws -> T) throws -> T {
    do {
      return try body()
    } catch let error as ReceiptError {
      throw error
    } catch let error as PrintError {
      throw ReceiptError(error)
    } catch let error as RenderError {
      throw ReceiptError(error)
    } catch let error as LayoutError {
      throw ReceiptError(error)
    } catch let error as TemplateError {
      throw ReceiptError(.data, error.description, underlying: error)
    } catch {
      throw ReceiptError(.render, "\(error)")
    }
  }
}
