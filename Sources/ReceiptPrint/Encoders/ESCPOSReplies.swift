public import Foundation

/// What an ESC/POS printer sends back on its two-way channel, and the requests that ask for it.
/// Byte layouts from Epson's ESC/POS command reference:
/// - real-time status (`DLE EOT n`): one byte, bits 1 and 4 set, 0 and 7 clear (``ESCPOSStatus``);
/// - automatic status back (`GS a n`): four bytes sent on every change, the first with bits 0, 1
///   and 7 clear and bit 4 set — 1st: bit 2 drawer pin 3, bit 3 offline, bit 5 cover open, bit 6
///   paper fed by the button; 2nd: bit 2 mechanical error, bit 3 autocutter error, bit 5
///   unrecoverable error, bit 6 automatically recoverable error; 3rd: bits 0–1 roll paper near
///   end, bits 2–3 roll paper end; 4th: reserved;
/// - the process ID response (`GS ( H` fn 48): `37h 22h d1 d2 d3 d4 00h`, sent when everything
///   before the request has printed;
/// - the clear response (`DLE DC4` fn 8): `37h 25h 00h`.
public enum ESCPOSReply: Equatable, Sendable {
  case realtimeStatus(UInt8)
  case automaticStatus(ESCPOSStatus)
  case processID(String)
  case buffersCleared

  /// `GS a 14`: send automatic status on changes of online/offline (bit 1), errors (bit 2) and
  /// the roll paper sensors (bit 3). The printer answers at once with the current status.
  public static let enableAutomaticStatus = Data([0x1D, 0x61, 0x0E])

  /// `DLE DC4 8 1 3 20 1 6 2 8`: clear the receive and print buffers (what has not printed yet
  /// never prints); answered by ``buffersCleared``.
  public static let clearBuffers = Data([0x10, 0x14, 0x08, 1, 3, 20, 1, 6, 2, 8])

  /// `GS ( H 6 0 48 48 d1 d2 d3 d4`: answer with ``processID(_:)`` once everything before it has
  /// printed. `id` is four printable ASCII characters (32…126).
  public static func processIDRequest(_ id: String) -> Data {
    precondition(isProcessID(id), "a process ID is four printable ASCII characters")
    return Data([0x1D, 0x28, 0x48, 0x06, 0x00, 0x30, 0x30] + Array(id.utf8))
  }

  /// Whether `id` can be a process ID: four characters from 32 to 126.
  public static func isProcessID(_ id: String) -> Bool {
    id.utf8.count == 4 && id.utf8.allSatisfy { (32...126).contains($0) }
  }
}

extension ESCPOSStatus {
  /// Reads an automatic status back packet (nil: not one).
  public init?(automaticStatusBack b: [UInt8]) {
    guard b.count == 4, b[0] & 0x93 == 0x10, b[1] & 0x90 == 0, b[2] & 0x90 == 0, b[3] & 0x90 == 0 else {
      return nil
    }
    self.init()
    drawerPin3High = b[0] & 0x04 != 0
    offline = b[0] & 0x08 != 0
    coverOpen = b[0] & 0x20 != 0
    cutterError = b[1] & 0x08 != 0
    unrecoverableError = b[1] & (0x04 | 0x20) != 0  // a mechanical error stops printing too
    autoRecoverableError = b[1] & 0x40 != 0
    paperNearEnd = b[2] & 0x03 == 0x03
    paperEnd = b[2] & 0x0C == 0x0C
    stoppedByPaperEnd = paperEnd
  }

  /// This status as an automatic status back packet (what a printer sends; the simulator's).
  public var automaticStatusBack: [UInt8] {
    let error = cutterError || unrecoverableError || autoRecoverableError
    var first: UInt8 = 0x10
    if drawerPin3High { first |= 0x04 }
    if offline || coverOpen || paperEnd || error { first |= 0x08 }
    if coverOpen { first |= 0x20 }
    var second: UInt8 = 0
    if cutterError { second |= 0x08 }
    if unrecoverableError { second |= 0x20 }
    if autoRecoverableError { second |= 0x40 }
    var third: UInt8 = 0
    if paperNearEnd || paperEnd { third |= 0x03 }
    if paperEnd { third |= 0x0C }
    return [first, second, third, 0]
  }
}

/// Splits the bytes a printer sends into ``ESCPOSReply`` values, however they arrive in pieces.
/// Bytes that belong to nothing it knows (XON/XOFF on a serial line, other responses) are
/// skipped; a `37h` response it does not know is skipped up to its NUL. Linear in its input: each
/// byte is looked at a bounded number of times, whatever the printer sends.
public struct ESCPOSReplyReader: Sendable {
  private var pending: [UInt8] = []
  /// The longest `37h … 00h` response read; longer runs are not responses.
  static let maxResponse = 64
  /// Bytes read so far that were no reply (XON/XOFF, noise, responses it does not know).
  public private(set) var ignoredBytes = 0

  /// Creates a reader.
  public init() {}

  /// Adds received bytes; returns the replies they complete, in order.
  public mutating func read(_ bytes: some Sequence<UInt8>) -> [ESCPOSReply] {
    pending += bytes
    var replies: [ESCPOSReply] = []
    var i = 0
    // pending[..<clear] was searched and has no NUL: under a flood each window looks only at
    // its one new byte, not at all 65 again.
    var clear = 0
    scan: while i < pending.count {
      let b = pending[i]
      if b & 0x93 == 0x12 {
        replies.append(.realtimeStatus(b))
        i += 1
      } else if b & 0x93 == 0x10 {
        guard i + 4 <= pending.count else { break scan }
        if let status = ESCPOSStatus(automaticStatusBack: Array(pending[i..<(i + 4)])) {
          replies.append(.automaticStatus(status))
          i += 4
        } else {
          ignoredBytes += 1
          i += 1
        }
      } else if b == 0x37 {
        // A response ends with NUL within `maxResponse` bytes; look no further (a printer that
        // floods `37h` must not make every byte a scan of the whole buffer).
        let window = pending[i..<min(pending.count, i + Self.maxResponse + 1)]
        let found = pending[max(i, clear)..<window.endIndex].firstIndex(of: 0)
        if found == nil { clear = window.endIndex }
        guard let nul = found else {
          guard window.count > Self.maxResponse else { break scan }
          ignoredBytes += 1  // no response is this long
          i += 1
          continue
        }
        // The response is what ends at this NUL: `37h 22h d1…d4 00h` or `37h 25h 00h`, read from
        // the NUL back (stray bytes before it — line noise, a flood — do not hide it).
        let tail = pending[i..<nul]
        if tail.count >= 6, tail[nul - 6] == 0x37, tail[nul - 5] == 0x22 {
          replies.append(.processID(String(decoding: tail[(nul - 4)...], as: UTF8.self)))
          ignoredBytes += tail.count - 6
        } else if tail.count >= 2, tail[nul - 2] == 0x37, tail[nul - 1] == 0x25 {
          replies.append(.buffersCleared)
          ignoredBytes += tail.count - 2
        } else {
          ignoredBytes += tail.count + 1
        }
        i = nul + 1
      } else {
        ignoredBytes += 1
        i += 1
      }
    }
    pending.removeFirst(i)
    return replies
  }
}
