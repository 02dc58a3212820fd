public import Foundation
package import ReceiptLayout
import ReceiptModel

#if canImport(Glibc)
  import Glibc
#endif

/// A raw TCP printer (`socket://host:9100`, the JetDirect/AppSocket port of ESC/POS printers).
/// Its state comes from ESC/POS real-time status (`DLE EOT 1…4`) where it answers; "done"
/// means the printer confirmed the receipt printed (models with `process-id`, when the job asks)
/// or else that the bytes were delivered.
public struct SocketPrinter: StreamingPrinter, RawStatusAsking {
  public var host: String
  public var port: UInt16

  /// Parses `socket://host[:port]` (default port 9100).
  public init?(uri: String) {
    guard uri.hasPrefix("socket://") else { return nil }
    let rest = uri.dropFirst("socket://".count).split(separator: "/").first.map(String.init) ?? ""
    let parts = rest.split(separator: ":")
    guard let host = parts.first.map(String.init), !host.isEmpty else { return nil }
    self.host = host
    if parts.count > 1 {
      guard let port = UInt16(parts[1]) else { return nil }
      self.port = port
    } else {
      self.port = 9100
    }
  }

  public var name: String { "socket://\(host):\(port)" }
  public var capabilities: PrinterCapabilities { PrinterCapabilities(format: .escpos) }
  /// Asks the printer (`DLE EOT 1…4` on a connection of its own): stopped with `media-empty`,
  /// `cover-open` … when it says so; unavailable when it cannot be reached; unknown when it
  /// does not answer within `timeout` (not every printer on port 9100 speaks ESC/POS status).
  public func status() throws -> PrinterStatus { status(timeout: 1) }

  public func status(timeout: TimeInterval) -> PrinterStatus { status(timeout: timeout, asking: .escpos) }

  /// Asks in `protocol` (Star's `ESC ACK SOH` for a Star model) on a connection of its own.
  public func status(timeout: TimeInterval, asking protocol: RawStatusProtocol) -> PrinterStatus {
    do {
      let fd = try connected(timeout: timeout)
      defer { close(fd) }
      try write(`protocol`.request, to: fd)
      return `protocol`.read(from: fd, timeout: timeout)
    } catch {
      return PrinterStatus(state: .unavailable, message: "\(error)")
    }
  }

  /// Sends the encoded receipt (all copies: ESC/POS, or Star raster for a Star model);
  /// with a process ID and a model that confirms prints, returns only once the printer says the
  /// receipt printed (``ConfirmedPrint``). Nil: no job ids.
  package func send(_ data: Data, of receipt: LaidOutReceipt, job: PrintJob) throws -> Int? {
    guard job.confirmed, let model = job.model, let id = job.processID else {
      try send(data, shouldStop: job.shouldStop)
      return nil
    }
    let channel = RawChannel(fd: try connected(timeout: 10), name: name)
    try ConfirmedPrint(
      channel: channel, model: model, processID: id, timeout: job.printingTime(receipt), shouldStop: job.shouldStop
    )
    .run(data, sendTimeout: 30)
    return nil
  }

  /// Connects, sends every byte and closes: the printer must connect and then take data within
  /// `timeout` seconds of the last it took. `shouldStop` is asked every second while it does not.
  public func send(_ data: Data, timeout: TimeInterval = 10, shouldStop: (@Sendable () -> Bool)? = nil) throws {
    let fd = try connected(timeout: timeout)
    defer { close(fd) }
    try write(data, to: fd, timeout: timeout, shouldStop: shouldStop)
  }

  /// Connects and sends what `produce` hands over as it comes (each piece within `timeout` of
  /// the printer's last progress, `shouldStop` asked while it takes nothing), then closes.
  public func sendStreaming(job: PrintJob, _ produce: (_ send: (Data) throws -> Void) throws -> Void) throws {
    let fd = try connected(timeout: 10)
    defer { close(fd) }
    var sent = 0
    try produce { data in
      do {
        try write(data, to: fd, timeout: 10, shouldStop: job.shouldStop)
      } catch PrintError.socket(let message) {
        throw PrintError.socket("\(message) (\(sent) bytes of the receipt sent before)")
      }
      sent += data.count
    }
  }

  /// A connected socket (the caller closes it).
  private func connected(timeout: TimeInterval) throws -> Int32 {
    var hints = addrinfo()
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    var info: UnsafeMutablePointer<addrinfo>?
    guard getaddrinfo(host, String(port), &hints, &info) == 0, let first = info else {
      throw PrintError.socket("cannot resolve printer host \(host)")
    }
    defer { freeaddrinfo(info) }
    // Close-on-exec: a helper spawned meanwhile (a document reader) must not keep the printer's
    // connection open after the job.
    let fd = socket(
      first.pointee.ai_family, first.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), first.pointee.ai_protocol)
    guard fd >= 0 else { throw PrintError.socket("cannot open a socket: \(String(cString: strerror(errno)))") }
    setSendTimeout(fd, timeout)
    guard connect(fd, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else {
      let reason = String(cString: strerror(errno))
      close(fd)
      throw PrintError.socket("cannot connect to printer \(host):\(port): \(reason)")
    }
    return fd
  }

  /// Writes every byte: each `send` waits at most a second (SO_SNDTIMEO), so `shouldStop` is
  /// asked while a printer takes nothing, and `timeout` without progress is an error.
  private func write(
    _ data: Data, to fd: Int32, timeout: TimeInterval = 10, shouldStop: (@Sendable () -> Bool)? = nil
  ) throws {
    setSendTimeout(fd, 1)
    try data.withUnsafeBytes { bytes in
      var offset = 0
      var progress = Date()
      while offset < bytes.count {
        if shouldStop?() == true {
          throw PrintError.abandoned(
            "sending to printer \(host):\(port) was given up after \(offset) of \(bytes.count) bytes; whether it printed is unknown"
          )
        }
        let n = Glibc.send(fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
        if n > 0 {
          offset += n
          progress = Date()
          continue
        }
        guard n < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR,
          Date().timeIntervalSince(progress) < timeout
        else {
          let reason = n < 0 && errno != EAGAIN && errno != EWOULDBLOCK ? String(cString: strerror(errno)) : "timed out"
          throw PrintError.socket(
            "printer \(host):\(port) stopped taking data after \(offset) of \(bytes.count) bytes: \(reason)")
        }
      }
    }
  }
}

/// Sets a socket's send timeout (SO_SNDTIMEO) to `seconds`: two 64-bit fields (seconds,
/// microseconds) as `struct timeval` has them on Linux.
func setSendTimeout(_ fd: Int32, _ seconds: Double) {
  var value: (Int, Int) = (
    seconds.clampedInt(.down, in: 0...Int(Int32.max)),
    ((seconds - seconds.rounded(.down)) * 1_000_000).clampedInt(.down, in: 0...999_999)
  )
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &value, socklen_t(MemoryLayout<(Int, Int)>.size))
}
