public import Foundation

/// How a raw printer (socket, USB, serial) is asked its state, by the command set its model
/// speaks: ESC/POS real-time status (`DLE EOT 1…4`, ``ESCPOSStatus``) or Star's automatic status
/// asked with `ESC ACK SOH` (``StarStatus``). Each printer takes only its own: a Star printer
/// would print `DLE EOT` as data, an ESC/POS printer `ESC ACK SOH`.
public enum RawStatusProtocol: String, Sendable, CaseIterable {
  case escpos
  case star

  /// The bytes that ask.
  public var request: Data {
    switch self {
    case .escpos: ESCPOSStatus.request
    case .star: StarStatus.request
    }
  }

  /// Reads the answer from `fd` (a socket or a device), waiting at most `timeout`: the
  /// printer's status, or unknown when it does not answer.
  func read(from fd: Int32, timeout: TimeInterval) -> PrinterStatus {
    switch self {
    case .escpos: ESCPOSStatus.read(from: fd, timeout: timeout)
    case .star: StarStatus.read(from: fd, timeout: timeout)
    }
  }
}

/// A printer that can be asked in either protocol (the caller knows which its model speaks).
package protocol RawStatusAsking: Printer {
  /// The printer's state, asked with `protocol`'s request within `timeout`.
  func status(timeout: TimeInterval, asking protocol: RawStatusProtocol) -> PrinterStatus
}

extension PrinterStatus {
  /// A raw printer's sensors in CUPS/IPP terms: stopped with `media-empty`, `cover-open`,
  /// `other` (an error, named) or `offline-report` (offline for no reason given), else idle —
  /// with `media-low` when the roll is nearly out.
  static func sensed(paperEnd: Bool, paperNearEnd: Bool, coverOpen: Bool, error: String?, offline: Bool)
    -> PrinterStatus
  {
    var reasons: [PrinterStateReason] = []
    var problems: [String] = []
    if paperEnd {
      reasons.append("media-empty")
      problems.append("out of paper")
    } else if paperNearEnd {
      reasons.append("media-low")
    }
    if coverOpen {
      reasons.append("cover-open")
      problems.append("cover open")
    }
    if let error {
      reasons.append("other")
      problems.append(error)
    }
    if offline, problems.isEmpty {
      reasons.append("offline-report")
      problems.append("offline")
    }
    let stopped = !problems.isEmpty
    return PrinterStatus(
      state: stopped ? .stopped : .idle, reasons: reasons,
      message: stopped ? problems.joined(separator: ", ") : (paperNearEnd ? "paper nearly out" : ""),
      acceptingJobs: true)
  }
}
