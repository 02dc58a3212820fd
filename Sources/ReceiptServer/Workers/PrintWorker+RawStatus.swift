import Foundation
import Logging
import ReceiptKit
@_spi(Internals) import ReceiptModel

/// A raw printer (socket, USB, serial) is asked for its state — ESC/POS `DLE EOT`, or Star's
/// `ESC ACK SOH` for a Star model — before each job is
/// claimed: while it reports paper out, an open cover or an error, the queue is held — no job is
/// claimed, so none is sent into a printer that cannot print, and none uses up an attempt — and
/// printing resumes in order once it is fixed. A printer that never answers the status request
/// is not asked again (until the daemon restarts): such printers print as before.
extension PrintWorker {
  /// How often a held queue asks its printer again.
  static let holdPollInterval: TimeInterval = 2

  /// Why the queue must wait now (the printer's status, asked on the printer's thread), or nil
  /// to go on.
  func rawPrinterHold() async -> PrinterStatus? {
    if case .polled = printer.target.delivery { return polled?.hold(printer.name, now: Date()) }
    guard printer.target.delivery == .raw else { return nil }
    let (engine, address, model) = (self.engine, printer.target.address, printer.model)
    guard rawStatus.shouldAsk, printer.answersStatusRequests,
      (try? await store.jobs(state: .queued, printer: printer.name, limit: 1, before: nil).isEmpty) == false,
      let status = try? await pool.run({ try engine.printerStatus(address, model: model) })
    else { return nil }
    if status.state == .unknown, !rawStatus.everAnswered {
      rawStatus.stopAsking()
      let asked = model?.statusProtocol == .star ? "Star status requests (ESC ACK SOH)" : "ESC/POS status requests"
      logger.info("printer \(printer.name) does not answer \(asked); printing without them")
      return nil
    }
    if status.state != .unknown { rawStatus.answered() }
    return status.state == .stopped ? status : nil
  }

  /// Logs a hold when it starts and when it ends (not on every poll).
  func noteHold(_ status: PrinterStatus?) {
    hold.withLock { $0 = status }
    if let status {
      if rawStatus.startHold(status.message) {
        logger.warning(
          "printer \(printer.name) holds its queue: \(status.message) (\(status.reasonKeywords.joined(separator: ", ")))"
        )
      }
    } else if rawStatus.endHold() {
      logger.info("printer \(printer.name) is ready again; printing resumes")
    }
  }
}

/// What a worker knows of its raw printer's status requests (behind ``Locked``).
final class RawStatusMemory: Sendable {
  private struct State {
    var shouldAsk = true
    var everAnswered = false
    var holding: String?
  }
  private let state = Locked(State())

  var shouldAsk: Bool { state.withLock { $0.shouldAsk } }
  var everAnswered: Bool { state.withLock { $0.everAnswered } }

  func stopAsking() { state.withLock { $0.shouldAsk = false } }
  func answered() { state.withLock { $0.everAnswered = true } }

  /// True when a hold starts (or its reason changes).
  func startHold(_ reason: String) -> Bool {
    state.withLock { state in
      defer { state.holding = reason }
      return state.holding != reason
    }
  }

  /// True when a hold ends.
  func endHold() -> Bool {
    state.withLock { state in
      defer { state.holding = nil }
      return state.holding != nil
    }
  }
}
