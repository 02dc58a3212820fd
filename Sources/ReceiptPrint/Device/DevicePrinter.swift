public import Foundation
package import ReceiptLayout

#if canImport(Glibc)
  import Glibc
#endif

/// A raw ESC/POS printer on a local device: `usb:/dev/usb/lp0` (the kernel's usblp character
/// device) or `serial:/dev/ttyUSB0?baud=115200&flow=rtscts` (a serial line set up with termios:
/// raw 8N1 at the baud rate, hardware or XON/XOFF flow control). Like a socket printer it cannot
/// be asked whether the paper came out, but it answers ESC/POS real-time status; "done" means
/// the bytes were written and, on a serial line, drained to the wire (`tcdrain`).
public struct DevicePrinter: Printer, RawStatusAsking {
  /// How the device is driven.
  public enum Kind: String, Sendable {
    case usb, serial
  }

  /// Serial flow control.
  public enum Flow: String, Sendable {
    case none, rtscts, xonxoff
  }

  public var kind: Kind
  public var path: String
  public var baud: Int
  public var flow: Flow

  /// Baud rates a serial printer may be set to (termios speeds: package, no C type in the API).
  package static let bauds: [Int: speed_t] = [
    9600: speed_t(B9600), 19200: speed_t(B19200), 38400: speed_t(B38400), 57600: speed_t(B57600),
    115200: speed_t(B115200), 230400: speed_t(B230400),
  ]

  /// Parses `usb:/dev/…` or `serial:/dev/…[?baud=N&flow=none|rtscts|xonxoff]` (default 9600
  /// baud, no flow control — the factory setting of most serial receipt printers).
  public init?(address: String) {
    let kind: Kind
    if address.hasPrefix("usb:") {
      kind = .usb
    } else if address.hasPrefix("serial:") {
      kind = .serial
    } else {
      return nil
    }
    let rest = address.dropFirst(kind.rawValue.count + 1)
    let parts = rest.split(separator: "?", maxSplits: 1)
    guard let path = parts.first.map(String.init), path.hasPrefix("/dev/"), !path.contains("..") else { return nil }
    var baud = 9600
    var flow = Flow.none
    if parts.count > 1 {
      guard kind == .serial else { return nil }
      for pair in parts[1].split(separator: "&") {
        let kv = pair.split(separator: "=", maxSplits: 1).map(String.init)
        guard kv.count == 2 else { return nil }
        switch kv[0] {
        case "baud":
          guard let b = Int(kv[1]), Self.bauds[b] != nil else { return nil }
          baud = b
        case "flow":
          guard let f = Flow(rawValue: kv[1]) else { return nil }
          flow = f
        default: return nil
        }
      }
    }
    (self.kind, self.path, self.baud, self.flow) = (kind, path, baud, flow)
  }

  public var name: String {
    kind == .usb ? "usb:\(path)" : "serial:\(path)?baud=\(baud)&flow=\(flow.rawValue)"
  }
  public var capabilities: PrinterCapabilities { PrinterCapabilities(format: .escpos) }

  /// Asks the printer (`DLE EOT 1…4`, answered on the same device): stopped with `media-empty`,
  /// `cover-open` … when it says so; unavailable when the device is missing (unplugged);
  /// unknown when it does not answer within a second.
  public func status() throws -> PrinterStatus { status(timeout: 1) }

  /// While this process is sending a job to the device the printer is not asked (the request
  /// would land inside the job's bytes; see ``DeviceLines``): `processing`.
  public func status(timeout: TimeInterval) -> PrinterStatus { status(timeout: timeout, asking: .escpos) }

  /// Asks in `protocol` (Star's `ESC ACK SOH` for a Star model).
  public func status(timeout: TimeInterval, asking protocol: RawStatusProtocol) -> PrinterStatus {
    let line = DeviceLines.key(path)
    guard DeviceLines.shared.tryTake(line) else {
      return PrinterStatus(state: .processing, message: "printing a job (not asked while it is sent)")
    }
    defer { DeviceLines.shared.give(line) }
    let fd = Glibc.open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
    guard fd >= 0 else {
      return PrinterStatus(state: .unavailable, message: "\(path): \(String(cString: strerror(errno)))")
    }
    defer { close(fd) }
    if kind == .serial, (try? configureSerial(fd)) == nil {
      return PrinterStatus(state: .unavailable, message: "\(path) is not a serial line")
    }
    let request = [UInt8](`protocol`.request)
    guard write(fd, request, request.count) == request.count else {
      return PrinterStatus(state: .unknown, message: "the printer does not take status requests")
    }
    return `protocol`.read(from: fd, timeout: timeout)
  }

  /// Writes the encoded receipt (all copies: ESC/POS, or Star raster for a Star model);
  /// with a process ID and a model that confirms prints, returns only once the printer says the
  /// receipt printed (``ConfirmedPrint``, over the same device). Nil: no job ids.
  package func send(_ data: Data, of receipt: LaidOutReceipt, job: PrintJob) throws -> Int? {
    guard job.confirmed, let model = job.model, let id = job.processID else {
      try send(data, shouldStop: job.shouldStop)
      return nil
    }
    let line = try takeLine()
    defer { DeviceLines.shared.give(line) }
    let fd = Glibc.open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
    guard fd >= 0 else { throw PrintError.output("cannot open printer \(path): \(String(cString: strerror(errno)))") }
    let channel = RawChannel(fd: fd, name: name)
    if kind == .serial { try configureSerial(fd) }
    let lineTime = kind == .serial ? Double(data.count * 10) / Double(baud) : 0
    try ConfirmedPrint(
      channel: channel, model: model, processID: id, timeout: job.printingTime(receipt) + lineTime,
      shouldStop: job.shouldStop
    )
    .run(data, sendTimeout: 30 + lineTime)
    return nil
  }

  /// Opens the device, sets up a serial line, writes every byte (waiting at most `timeout` plus
  /// the bytes' time on the line for the printer to take them) and closes it.
  /// `shouldStop` is asked every ``RawChannel/stopCheckInterval`` while the printer takes nothing.
  public func send(_ data: Data, timeout: TimeInterval = 30, shouldStop: (@Sendable () -> Bool)? = nil) throws {
    let line = try takeLine()
    defer { DeviceLines.shared.give(line) }
    let fd = Glibc.open(path, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
    guard fd >= 0 else { throw PrintError.output("cannot open printer \(path): \(String(cString: strerror(errno)))") }
    defer { close(fd) }
    if kind == .serial { try configureSerial(fd) }
    let lineTime = kind == .serial ? Double(data.count * 10) / Double(baud) : 0
    let deadline = Date().addingTimeInterval(timeout + lineTime)
    try data.withUnsafeBytes { bytes in
      var offset = 0
      while offset < bytes.count {
        let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
        if n > 0 {
          offset += n
          continue
        }
        guard n < 0, errno == EAGAIN || errno == EINTR else {
          throw PrintError.output("printer \(path) stopped taking data: \(String(cString: strerror(errno)))")
        }
        if shouldStop?() == true {
          throw PrintError.abandoned(
            "sending to printer \(path) was given up after \(offset) of \(bytes.count) bytes; whether it printed is unknown"
          )
        }
        let left = deadline.timeIntervalSinceNow
        guard left > 0 else {
          throw PrintError.output(
            "printer \(path) took \(offset) of \(bytes.count) bytes and then nothing for \(Int(timeout)) s; is it on and has it paper?"
          )
        }
        var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        _ = poll(&pfd, 1, Int32(min(left, RawChannel.stopCheckInterval) * 1000))
      }
    }
    if kind == .serial, tcdrain(fd) != 0 {
      throw PrintError.output("printer \(path): the serial line did not drain: \(String(cString: strerror(errno)))")
    }
  }

  /// The device's line for a job: waits for a status request in progress (at most its
  /// timeout and some), so none is written into the job's bytes.
  private func takeLine() throws -> String {
    let line = DeviceLines.key(path)
    guard DeviceLines.shared.take(line, before: Date().addingTimeInterval(10)) else {
      throw PrintError.output("printer \(path) is busy: another job or a status request did not end in 10 s")
    }
    return line
  }

  /// Raw 8N1 at the baud rate, with the flow control asked for.
  private func configureSerial(_ fd: Int32) throws {
    var t = termios()
    guard tcgetattr(fd, &t) == 0 else {
      throw PrintError.output("\(path) is not a serial line: \(String(cString: strerror(errno)))")
    }
    cfmakeraw(&t)
    let speed = Self.bauds[baud]!
    cfsetispeed(&t, speed)
    cfsetospeed(&t, speed)
    t.c_cflag |= tcflag_t(CLOCAL | CREAD)
    t.c_cflag &= ~tcflag_t(CSTOPB | PARENB)
    if flow == .rtscts { t.c_cflag |= tcflag_t(CRTSCTS) } else { t.c_cflag &= ~tcflag_t(CRTSCTS) }
    if flow == .xonxoff { t.c_iflag |= tcflag_t(IXON | IXOFF) } else { t.c_iflag &= ~tcflag_t(IXON | IXOFF) }
    guard tcsetattr(fd, TCSANOW, &t) == 0 else {
      throw PrintError.output("cannot set up the serial line \(path): \(String(cString: strerror(errno)))")
    }
  }
}
