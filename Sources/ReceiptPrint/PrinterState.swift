/// A printer's state (IPP `printer-state`, RFC 8011 §5.4.11), or what receipt knows of a
/// printer that cannot be asked.
public enum PrinterState: String, Sendable, Codable, CaseIterable {
  case idle
  case processing
  /// Stopped by the operator or by a fault (`media-empty`, `cover-open`): jobs wait.
  case stopped
  /// The printer cannot be reached or its answer is not understood.
  case unavailable
  /// The printer cannot be asked (a raw socket printer).
  case unknown

  /// The state for an IPP `printer-state` enum value.
  public init(ipp value: Int) {
    self = [3: .idle, 4: .processing, 5: .stopped][value] ?? .unknown
  }
}

/// A print job's state (IPP `job-state`, RFC 8011 §5.3.7).
public enum JobState: String, Sendable, Codable, CaseIterable {
  case pending
  case held
  case processing
  /// The printer stopped while the job was on it (it resumes when the printer does).
  case stopped
  case canceled
  case aborted
  /// Printed.
  case completed
  case unknown

  /// The state for an IPP `job-state` enum value: the one table of CUPS' job states.
  public init(ipp value: Int) {
    self =
      [3: .pending, 4: .held, 5: .processing, 6: .stopped, 7: .canceled, 8: .aborted, 9: .completed][value]
      ?? .unknown
  }

  /// The printer still has the job and may print it.
  public var isActive: Bool { [.pending, .held, .processing, .stopped].contains(self) }

  /// The job has ended (only `completed` means printed); `stopped` ends a wait, too.
  public var isFinal: Bool { [.completed, .canceled, .aborted, .stopped].contains(self) }
}

/// A state with a message and reasons (a printer's or a job's), said in one line.
public protocol ExplainedState {
  var message: String { get }
  /// The reasons as IPP keywords.
  var reasonKeywords: [String] { get }
}

extension ExplainedState {
  /// The message and reasons in one line, or `fallback` when there are none.
  public func explanation(or fallback: String) -> String {
    let parts = ([message] + reasonKeywords).filter { !$0.isEmpty }
    return parts.isEmpty ? fallback : parts.joined(separator: ", ")
  }
}

/// Where a job is, with the reasons the printer gives.
public struct JobStatus: Sendable, Equatable, ExplainedState {
  /// The printer's job id (CUPS job id).
  public var id: Int
  public var state: JobState
  /// `job-state-reasons` (and, while the printer is stopped, the printer's reasons).
  public var reasons: [String]
  /// The reasons (``ExplainedState``).
  public var reasonKeywords: [String] { reasons }
  public var message: String

  /// Creates a status.
  public init(id: Int, state: JobState, reasons: [String] = [], message: String = "") {
    self.id = id
    self.state = state
    self.reasons = reasons
    self.message = message
  }

  /// Whether the wait for the job is over.
  public var isFinal: Bool { state.isFinal }
}
