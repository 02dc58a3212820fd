import Foundation

/// Sends one receipt to a raw ESC/POS printer that confirms prints, and waits for the
/// confirmation: the receipt ends with `GS ( H` fn 48 carrying the job's process ID, which the
/// printer sends back once everything before it has printed. Meanwhile the printer's status is
/// watched — automatic status back (`GS a`) where the model sends it, else real-time status
/// (`DLE EOT 1…4`) asked every second — and when it reports paper out, an open cover or an error
/// before the confirmation, the rest of the receipt is cleared from its buffers (`DLE DC4` fn 8,
/// so the remainder does not print on the next roll) and the print is ``PrintError/interrupted(_:)``.
/// No confirmation in time, or a connection lost before it: ``PrintError/notConfirmed(_:)``.
struct ConfirmedPrint {
  let channel: RawChannel
  let model: PrinterModel
  let processID: String
  /// How long the printer may take to print the receipt after the last byte was sent.
  let timeout: TimeInterval

  /// How often real-time status is asked while waiting.
  static let statusInterval: TimeInterval = 1

  func run(_ receipt: Data, sendTimeout: TimeInterval) throws {
    var reader = ESCPOSReplyReader()
    var realtime: [UInt8] = []
    var confirmed = false
    func take(_ bytes: [UInt8]) throws {
      for reply in reader.read(bytes) {
        switch reply {
        case .processID(let id) where id == processID:
          confirmed = true
        case .automaticStatus(let status):
          try check(status)
        case .realtimeStatus(let byte):
          realtime.append(byte)
          if realtime.count == 4 {
            if let status = ESCPOSStatus(replies: realtime) { try check(status) }
            realtime = []
          }
        default:
          break  // an older job's process ID; a clear response
        }
      }
    }
    var data = Data([0x1B, 0x40])  // ESC @ first: the status request below must not follow a half command
    if model.sendsAutomaticStatus { data += ESCPOSReply.enableAutomaticStatus }
    data += receipt
    data += ESCPOSReply.processIDRequest(processID)
    do {
      try channel.write(data, deadline: Date().addingTimeInterval(sendTimeout), received: take)
      let deadline = Date().addingTimeInterval(timeout)
      var nextAsk = Date()
      while !confirmed {
        guard deadline.timeIntervalSinceNow > 0 else {
          throw PrintError.notConfirmed(
            "printer \(channel.name) did not confirm the receipt within \(Int(timeout)) s; it is sent again, marked as a reprint"
          )
        }
        if model.status.contains("realtime"), Date() >= nextAsk {  // also with ASB: it may be off
          realtime = []
          try channel.write(ESCPOSStatus.request, deadline: deadline, received: take)
          nextAsk = Date().addingTimeInterval(Self.statusInterval)
        }
        if let bytes = try channel.read(timeout: min(Self.statusInterval, max(0.05, deadline.timeIntervalSinceNow))) {
          try take(bytes)
        }
      }
    } catch let stopped as Stopped {
      clearBuffers()
      throw PrintError.interrupted(
        "printer \(channel.name) stopped before the receipt had printed: \(stopped.status.message) "
          + "(\(stopped.status.reasons.joined(separator: ", "))); it prints again, marked as a reprint, once the printer is ready"
      )
    }
  }

  private struct Stopped: Error {
    let status: PrinterStatus
  }

  private func check(_ status: ESCPOSStatus) throws {
    let printer = status.printerStatus
    if printer.state == .stopped { throw Stopped(status: printer) }
  }

  /// Clears what has not printed (best effort: a printer that does not answer in 2 s is left).
  private func clearBuffers() {
    var reader = ESCPOSReplyReader()
    let deadline = Date().addingTimeInterval(2)
    guard (try? channel.write(ESCPOSReply.clearBuffers, deadline: deadline, received: { _ in })) != nil else { return }
    while deadline.timeIntervalSinceNow > 0 {
      guard let bytes = try? channel.read(timeout: deadline.timeIntervalSinceNow) else { return }
      if reader.read(bytes).contains(.buffersCleared) { return }
    }
  }
}
