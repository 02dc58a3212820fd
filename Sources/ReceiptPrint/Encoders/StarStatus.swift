public import Foundation
import ReceiptModel

#if canImport(Glibc)
  import Glibc
#endif

/// A Star printer's automatic status (ASB), which it sends when asked with `ESC ACK SOH`
/// (1B 06 01) — at once, even while offline — whether or not it sends it on its own (STAR Line
/// Mode Command Specifications Rev. 0.00, p. 3-70 "ESC ACK SOH Real-time printer status (ASB
/// Status)" and Appendix 5-2-3 pp. 5-7…5-11; the same command in STAR Graphic Mode Command
/// Specifications Rev. 2.32, 3-1-3 "Status", which the TSP100 series speaks):
/// - header 1 (first byte): the whole status's byte count, header included, in bits 1–3 and 5;
///   bit 0 is 1 and bits 4 and 7 are 0, which is how it is told from other data (p. 5-7; bit 6
///   is for future expansion and ignored);
/// - header 2: the status version in bits 1–3 and 5; bit 7 set when two length bytes follow the
///   status (Ethernet and wireless LAN: a length of 0 after an `ESC ACK SOH` answer, p. 5-8 and
///   the dot-impact specification Rev. 0.70 p. 5-7 "Printer Status Transmission Specification when
///   using Ethernet");
/// - every later byte has bits 0 and 4 clear, and bit 7 too after header 2 (p. 5-11, "Status
///   identification method");
/// - printer status 1 (third byte): bit 5 cover open, bit 3 offline; status 2 (fourth): bit 6
///   stopped by high head temperature, bit 5 non-recoverable error, bit 3 autocutter error, bit 2
///   mechanical error (p. 5-9); status 4 (sixth): bit 3 paper end, bit 2 paper near end (inner
///   sensor), bit 1 near end (outer) (p. 5-10).
public struct StarStatus: Equatable, Sendable {
  /// `ESC ACK SOH`.
  public static let request = Data([0x1B, 0x06, 0x01])

  public var offline = false
  public var coverOpen = false
  public var paperEnd = false
  public var paperNearEnd = false
  public var headTooHot = false
  public var unrecoverableError = false
  public var cutterError = false
  public var mechanicalError = false

  /// A status (all clear).
  public init() {}

  /// Reads one automatic status (as many bytes as its header 1 says, without the LAN length);
  /// nil when they are not one, or too short to hold the paper sensors (printer status 4).
  public init?(_ bytes: [UInt8]) {
    guard let first = bytes.first, let count = Self.byteCount(header: first), bytes.count == count, count >= 6,
      bytes[1] & 0x11 == 0, bytes.dropFirst(2).allSatisfy({ $0 & 0x91 == 0 })
    else { return nil }
    self.init(sensorsOf: bytes)
  }

  /// The bits of an automatic status as they stand, unchecked (a byte not there reads as clear):
  /// for one relayed by something else — a CloudPRNT poll's `status` — whose framing is not
  /// the printer's own.
  public init(sensorsOf bytes: [UInt8]) {
    func bit(_ byte: Int, _ n: Int) -> Bool { byte < bytes.count && bytes[byte] & (1 << n) != 0 }
    coverOpen = bit(2, 5)
    offline = bit(2, 3)
    headTooHot = bit(3, 6)
    unrecoverableError = bit(3, 5)
    cutterError = bit(3, 3)
    mechanicalError = bit(3, 2)
    paperEnd = bit(5, 3)
    paperNearEnd = bit(5, 2) || bit(5, 1)
  }

  /// The status's whole byte count from its header 1; nil when the byte is no header 1.
  public static func byteCount(header: UInt8) -> Int? {
    guard header & 0x91 == 0x01 else { return nil }
    return Int((header >> 1) & 0x07) | Int((header >> 2) & 0x08)
  }

  /// In CUPS/IPP terms, as ``ESCPOSStatus/printerStatus``.
  public var printerStatus: PrinterStatus {
    let error =
      cutterError
      ? "autocutter error"
      : mechanicalError
        ? "mechanical error" : unrecoverableError ? "unrecoverable error" : headTooHot ? "print head too hot" : nil
    return PrinterStatus.sensed(
      paperEnd: paperEnd, paperNearEnd: paperNearEnd, coverOpen: coverOpen, error: error, offline: offline)
  }

  /// Reads the answer to ``request`` from `fd`, waiting at most `timeout`: the header, the rest
  /// it announces, and the two length bytes (and what they count) when header 2 says they
  /// follow. Unknown when the printer does not answer or the bytes are no automatic status.
  static func read(from fd: Int32, timeout: TimeInterval) -> PrinterStatus {
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 64)
    let deadline = Date().addingTimeInterval(timeout)
    func wanted() -> Int? {
      guard let first = bytes.first else { return 1 }
      guard let count = byteCount(header: first) else { return nil }
      guard bytes.count >= 2, bytes[1] & 0x80 != 0 else { return count }
      guard bytes.count >= count + 2 else { return count + 2 }
      return count + 2 + min(0x200, Int(bytes[count]) << 8 | Int(bytes[count + 1]))
    }
    while let want = wanted(), bytes.count < max(want, 2), deadline.timeIntervalSinceNow > 0 {
      var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      let wait = Int32(clamping: max(1, deadline.timeIntervalSinceNow * 1000).clampedInt(.up, in: 1...60_000))
      guard poll(&pfd, 1, wait) > 0 else { break }
      let n = Glibc.read(fd, &buffer, min(buffer.count, max(1, want - bytes.count)))
      guard n > 0 else { break }
      bytes += buffer[0..<n]
    }
    guard let first = bytes.first, let count = byteCount(header: first), bytes.count >= count,
      let status = StarStatus(Array(bytes.prefix(count)))
    else {
      return PrinterStatus(state: .unknown, message: "the printer does not answer Star status requests (ESC ACK SOH)")
    }
    return status.printerStatus
  }
}
