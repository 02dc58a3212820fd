public import Foundation
import ReceiptModel

#if canImport(Glibc)
  import Glibc
#endif

/// An ESC/POS printer's real-time status: the four one-byte answers to `DLE EOT n` (n = 1…4),
/// which a printer sends at once, even while offline. Epson's byte layouts (ESC/POS Application
/// Programming Guide, "DLE EOT: Transmit real-time status"): bits 1 and 4 are always 1, bits 0
/// and 7 always 0 — how a reply is told from other data.
/// - n = 1 printer: bit 2 drawer connector pin 3 high, bit 3 offline, bit 5 waiting for online
///   recovery, bit 6 paper feed button pressed;
/// - n = 2 offline cause: bit 2 cover open, bit 3 paper fed by the button, bit 5 printing stopped
///   by paper end, bit 6 an error;
/// - n = 3 error cause: bit 2 recoverable error, bit 3 autocutter error, bit 5 unrecoverable
///   error, bit 6 auto-recoverable error (head temperature);
/// - n = 4 roll paper sensor: bits 2–3 near end, bits 5–6 paper end.
public struct ESCPOSStatus: Equatable, Sendable {
  /// The four requests, `DLE EOT 1` … `DLE EOT 4`.
  public static let request = Data([0x10, 0x04, 1, 0x10, 0x04, 2, 0x10, 0x04, 3, 0x10, 0x04, 4])

  public var offline = false
  public var drawerPin3High = false
  public var coverOpen = false
  public var paperEnd = false
  public var paperNearEnd = false
  public var stoppedByPaperEnd = false
  public var cutterError = false
  public var unrecoverableError = false
  public var autoRecoverableError = false

  /// A status (all clear by default).
  public init() {}

  /// Reads the four answers; nil when they are not status bytes.
  public init?(replies: [UInt8]) {
    guard replies.count == 4, replies.allSatisfy(Self.isStatusByte) else { return nil }
    func bit(_ byte: Int, _ n: Int) -> Bool { replies[byte] & (1 << n) != 0 }
    drawerPin3High = bit(0, 2)
    offline = bit(0, 3)
    coverOpen = bit(1, 2)
    stoppedByPaperEnd = bit(1, 5)
    cutterError = bit(2, 3)
    unrecoverableError = bit(2, 5)
    autoRecoverableError = bit(2, 6)
    paperNearEnd = bit(3, 2) && bit(3, 3)
    paperEnd = bit(3, 5) && bit(3, 6)
  }

  /// Whether a byte has the fixed bits of a status reply.
  public static func isStatusByte(_ b: UInt8) -> Bool { b & 0x93 == 0x12 }

  /// The four answer bytes for this status (what a printer sends; the simulator's replies).
  public var replies: [UInt8] {
    func byte(_ bits: [(Int, Bool)]) -> UInt8 { bits.reduce(0x12) { $1.1 ? $0 | UInt8(1 << $1.0) : $0 } }
    let error = cutterError || unrecoverableError || autoRecoverableError
    return [
      byte([(2, drawerPin3High), (3, offline || coverOpen || paperEnd || error)]),
      byte([(2, coverOpen), (5, stoppedByPaperEnd || paperEnd), (6, error)]),
      byte([(3, cutterError), (5, unrecoverableError), (6, autoRecoverableError)]),
      byte([(2, paperNearEnd || paperEnd), (3, paperNearEnd || paperEnd), (5, paperEnd), (6, paperEnd)]),
    ]
  }

  /// In CUPS/IPP terms: stopped with `media-empty`, `cover-open`, `offline-report` or `other`
  /// (a cutter or unrecoverable error), or idle, with `media-low` when the roll is nearly out.
  public var printerStatus: PrinterStatus {
    PrinterStatus.sensed(
      paperEnd: paperEnd, paperNearEnd: paperNearEnd, coverOpen: coverOpen,
      error: cutterError
        ? "autocutter error"
        : unrecoverableError
          ? "unrecoverable error" : autoRecoverableError ? "print head too hot" : nil, offline: offline)
  }

  /// Reads the four answers to ``request`` from `fd` (a socket or a device), waiting at most
  /// `timeout`: the printer's status, or unknown when it does not answer.
  static func read(from fd: Int32, timeout: TimeInterval) -> PrinterStatus {
    var replies: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 16)
    let deadline = Date().addingTimeInterval(timeout)
    while replies.count < 4, deadline.timeIntervalSinceNow > 0 {
      var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      guard
        poll(&pfd, 1, Int32(clamping: max(1, deadline.timeIntervalSinceNow * 1000).clampedInt(.up, in: 1...60_000))) > 0
      else { break }
      let n = Glibc.read(fd, &buffer, buffer.count)
      guard n > 0 else { break }
      replies += buffer[0..<n]
    }
    guard let status = ESCPOSStatus(replies: Array(replies.prefix(4))) else {
      return PrinterStatus(state: .unknown, message: "the printer does not answer ESC/POS status requests")
    }
    return status.printerStatus
  }
}
