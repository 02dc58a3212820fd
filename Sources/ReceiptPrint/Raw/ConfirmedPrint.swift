import Foundation

/// Sends one receipt to a raw ESC/POS printer that confirms prints, and waits for the
/// confirmation: the receipt ends with `GS ( H` fn 48 carrying the job's process ID, which the
/// printer sends back once everything before it has printed. Meanwhile the printer's status is
/// watched — automatic status back (`GS a`) where the model sends it, else real-time status
/// (`DLE EOT 1…4`) asked every second — and when it reports paper out, an open cover or an error
/// before the confirmation, the rest of the receipt is cleared from its buffers (`DLE DC4` fn 8,
/// so the remainder does not print on the next roll) and the print is ``PrintError/interrupted(_:)``.
/// A printer that is stopped before any of the receipt went out is ``PrintError/printerNotReady(_:reason:)``:
/// nothing was sent. No confirmation in time, or a connection lost before it:
/// ``PrintError/notConfirmed(_:)``; the caller stopping it (``PrintJob/shouldStop``):
/// ``PrintError/abandoned(_:)``. The messages say what happened at the printer; what happens
/// next (the daemon prints it again, marked as a reprint) is the caller's to say.
struct ConfirmedPrint {
  let channel: RawChannel
  let model: PrinterModel
  let processID: String
  /// How long the printer may take to print the receipt after the last byte was sent.
  let timeout: TimeInterval
  /// True when the caller wants the print given up (checked at least every
  /// ``RawChannel/stopCheckInterval``).
  var shouldStop: (@Sendable () -> Bool)? = nil

  /// How often real-time status is asked while waiting.
  static let statusInterval: TimeInterval = 1
  /// How long the printer's status is awaited before the receipt is sent.
  static let readyTimeout: TimeInterval = 2
  /// Bytes a printer may send that are no replies before it is taken for something that does
  /// not speak ESC/POS back (a printer sends a few status bytes a second).
  static let maxIgnoredBytes = 64 << 10

  func run(_ receipt: Data, sendTimeout: TimeInterval) throws {
    var reader = ESCPOSReplyReader()
    var realtime: [UInt8] = []
    var confirmed = false
    var latest: ESCPOSStatus?
    func take(_ bytes: [UInt8]) throws {
      let replies = reader.read(bytes)
      guard reader.ignoredBytes <= Self.maxIgnoredBytes else {
        throw PrintError.notConfirmed(
          "printer \(channel.name) sent \(reader.ignoredBytes) bytes that are no ESC/POS replies (is it an ESC/POS "
            + "printer, and is its model right?); whether it printed is unknown")
      }
      for reply in replies {
        switch reply {
        case .processID(let id) where id == processID:
          confirmed = true
        case .automaticStatus(let status):
          latest = status
          try check(status)
        case .realtimeStatus(let byte):
          realtime.append(byte)
          if realtime.count == 4 {
            if let status = ESCPOSStatus(replies: realtime) {
              latest = status
              try check(status)
            }
            realtime = []
          }
        default:
          break  // an older job's process ID; a clear response
        }
      }
    }
    // ESC @ first: the status request below must not follow a half command. Then the printer's
    // status, before any of the receipt: one out of paper gets nothing.
    var preamble = Data([0x1B, 0x40])
    if model.sendsAutomaticStatus { preamble += ESCPOSReply.enableAutomaticStatus }
    if model.status.contains("realtime") { preamble += ESCPOSStatus.request }
    do {
      try channel.write(preamble, deadline: Date().addingTimeInterval(sendTimeout), received: take)
      let ready = Date().addingTimeInterval(Self.readyTimeout)
      let answers = model.sendsAutomaticStatus || model.status.contains("realtime")
      while answers, latest == nil, ready.timeIntervalSinceNow > 0 {
        try stopIfAsked()
        if let bytes = try channel.read(timeout: min(0.25, max(0.01, ready.timeIntervalSinceNow))) { try take(bytes) }
      }
    } catch let stopped as Stopped {
      throw PrintError.printerNotReady(
        channel.name,
        reason: "\(stopped.status.message) (\(stopped.status.reasonKeywords.joined(separator: ", "))); nothing was sent"
      )
    }
    do {
      try channel.write(
        receipt + ESCPOSReply.processIDRequest(processID), deadline: Date().addingTimeInterval(sendTimeout),
        received: take, shouldStop: shouldStop)
      let deadline = Date().addingTimeInterval(timeout)
      var nextAsk = Date()
      while !confirmed {
        guard deadline.timeIntervalSinceNow > 0 else {
          throw PrintError.notConfirmed(
            "printer \(channel.name) did not confirm the receipt within \(Int(timeout)) s; whether it printed is unknown"
          )
        }
        try stopIfAsked()
        if model.status.contains("realtime"), Date() >= nextAsk {  // also with ASB: it may be off
          realtime = []
          // A printer that takes nothing (its buffer full of the receipt) holds this write up:
          // the caller's stop still reaches it.
          try channel.write(ESCPOSStatus.request, deadline: deadline, received: take, shouldStop: shouldStop)
          nextAsk = Date().addingTimeInterval(Self.statusInterval)
        }
        let wait = min(RawChannel.stopCheckInterval, max(0.05, deadline.timeIntervalSinceNow))
        if let bytes = try channel.read(timeout: wait) {
          try take(bytes)
        }
      }
    } catch let stopped as Stopped {
      clearBuffers()
      throw PrintError.interrupted(
        "printer \(channel.name) stopped before the receipt had printed: \(stopped.status.message) "
          + "(\(stopped.status.reasonKeywords.joined(separator: ", "))); what had not printed was cleared from the printer"
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

  private func stopIfAsked() throws {
    if shouldStop?() == true {
      throw PrintError.abandoned(
        "the print on \(channel.name) was given up before the printer confirmed it; whether it printed is unknown")
    }
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
