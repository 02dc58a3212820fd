import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A stand-in for a thermal receipt printer (hardware that cannot exist here), written from the
/// vendors' specifications independently of the code under test. It listens on TCP (port 9100
/// style) or on a pty pair (a serial line, read at the configured baud rate; the pty's path also
/// stands in for a USB printer device), and behaves as a printer does:
/// - the receive side parses the stream command by command — raster payloads are skipped by
///   their length, so image bytes are never taken for commands — and answers the real-time
///   commands at once, even while printing is stopped: `DLE EOT n` (Epson's status byte layout)
///   and `DLE DC4` fn 8 (clear buffers, answered `37h 25h 00h`) — or, as a Star model, Star's
///   `ESC ACK SOH` (its automatic status, with the two length bytes on TCP as on Ethernet), and
///   then `DLE` is refused: a Star printer would print it;
/// - the print engine works through the buffered commands in order, unless the paper is out or
///   the cover open: it prints ESC/POS `GS v 0` bands, `ESC J` feeds in the vertical motion unit
///   (the model's documented default after `ESC @`, or what `GS P` set) and `GS V` cuts, and Star
///   raster (`ESC * r A`, `b n1 n2`, `ESC * r Y n NUL`, `ESC FF NUL`, `ESC * r B`) into page
///   images ``pages``; answers `GS ( H` fn 48 with the process ID (`37h 22h d1…d4 00h`) when
///   everything before it has printed; sends automatic status back (`GS a`) on every change;
/// - it refuses what it does not know — an unknown command, a `GS v 0` or `GS V` mode it does not
///   print, text, a feed whose unit the model's references do not give — and stops there
///   (``refusedCommands``), so a stream a real printer would misread fails the test;
/// - it can be told to run out of paper after some rows, open its cover, drop the connection
///   after some bytes, or print slowly.
public final class ThermalPrinterSimulator: @unchecked Sendable {  // state behind `lock`
  /// The TCP port (0 on a pty).
  public let port: UInt16
  /// The pty's device path (`/dev/pts/N`): a `serial:` or `usb:` printer address (nil on TCP).
  public let devicePath: String?
  /// The printer simulated: its head and default motion units.
  public let model: SimulatedPrinterModel
  /// The dots the head prints across (rows of ``pages`` are this wide).
  public var headDots: Int { model.headDots }
  let lock = NSCondition()
  private let listener: Int32
  /// The pty's other end, kept open so the line keeps its raw settings between jobs.
  private let ptySlave: Int32
  let baud: Int?
  var state = SimulatedPrinterState()

  /// A printer on TCP loopback.
  public init(model: SimulatedPrinterModel = .generic203()) throws {
    self.model = model
    state.verticalUnits = model.defaultVerticalUnits
    (listener, port) = try Loopback.listen()
    (devicePath, ptySlave, baud) = (nil, -1, nil)
    let fd = listener
    // Holds the simulator only while serving a connection: when the test drops it, `deinit`
    // shuts the socket down, `accept` fails and the thread ends. The thread, not `deinit`,
    // closes the socket: closed under a thread about to call `accept` again, its number could
    // already belong to another test's listener, whose connections that thread would take.
    Thread { [weak self] in
      defer { close(fd) }
      while true {
        let client = accept(fd, nil, nil)
        guard client >= 0 else { return }
        guard let self else {
          close(client)
          return
        }
        Thread { self.receive(from: client, closeWhenDone: true) }.start()
      }
    }.start()
    startEngine()
  }

  /// A printer on a serial line: a pty pair whose printer side reads at most `baud` / 10 bytes
  /// a second (8N1), as the wire would carry them.
  public init(serialBaud baud: Int, model: SimulatedPrinterModel = .generic203()) throws {
    self.model = model
    state.verticalUnits = model.defaultVerticalUnits
    // /dev/ptmx by hand (Swift's Glibc module does not show posix_openpt): unlock the pair
    // (TIOCSPTLCK) and ask its number (TIOCGPTN).
    let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
    var unlock: Int32 = 0
    var number: UInt32 = 0
    guard master >= 0, ioctl(master, 0x4004_5431, &unlock) == 0, ioctl(master, 0x8004_5430, &number) == 0 else {
      throw RigError("cannot open a pty pair")
    }
    let path = "/dev/pts/\(number)"
    let slave = open(path, O_RDWR | O_NOCTTY)
    var t = termios()
    tcgetattr(slave, &t)
    cfmakeraw(&t)
    tcsetattr(slave, TCSANOW, &t)
    (listener, port, devicePath, ptySlave, self.baud) = (master, 0, path, slave, baud)
    Thread { [weak self] in self?.receive(from: master, closeWhenDone: false) }.start()
    startEngine()
  }

  deinit {
    if devicePath == nil { shutdown(listener, Int32(SHUT_RDWR)) } else { close(ptySlave) }
    lock.lock()
    state.closed = true
    lock.broadcast()
    lock.unlock()
  }

  /// Sets the sensors. Paper back in or the cover closed lets the engine go on with what it
  /// holds; every change is sent as automatic status where it is enabled.
  public func set(paperEnd: Bool? = nil, paperNearEnd: Bool? = nil, coverOpen: Bool? = nil, cutterError: Bool? = nil) {
    lock.lock()
    if let paperEnd {
      state.paperEnd = paperEnd
      if !paperEnd { state.rowsUntilPaperOut = nil }
    }
    if let paperNearEnd { state.paperNearEnd = paperNearEnd }
    if let coverOpen { state.coverOpen = coverOpen }
    if let cutterError { state.cutterError = cutterError }
    statusChanged()
    lock.broadcast()
    lock.unlock()
  }

  /// The paper runs out after `rows` more dot rows have printed (mid-receipt).
  public func runOutOfPaper(afterRows rows: Int) {
    lock.lock()
    state.rowsUntilPaperOut = rows
    lock.unlock()
  }

  /// The printer drops the TCP connection that carries the `bytes`-th byte from now (what it had
  /// received by then still prints).
  public func disconnect(afterBytes bytes: Int) {
    lock.lock()
    state.disconnectAfter = bytes
    lock.unlock()
  }

  /// Prints at most this many dot rows a second (nil: at once).
  public func printSlowly(rowsPerSecond: Double?) {
    lock.lock()
    state.rowsPerSecond = rowsPerSecond
    lock.unlock()
  }

  /// Print data received, one entry per connection that sent any (real-time requests excluded).
  public var jobs: [Data] { locked { $0.printedJobs } }
  /// The pages printed so far (a page ends at a cut), and the page being printed (`cut` nil).
  public var pages: [SimulatedPage] { locked { $0.pages } }
  /// The process IDs the printer answered, in order.
  public var confirmedProcessIDs: [String] { locked { $0.answeredProcessIDs } }
  /// Bytes received, real-time requests included (all connections, or the serial line).
  public var bytesReceived: Int { locked { $0.bytesReceived } }
  /// `DLE EOT` requests answered.
  public var statusRequestCount: Int { locked { $0.statusRequests } }
  /// Star `ESC ACK SOH` requests answered.
  public var starStatusRequestCount: Int { locked { $0.starStatusRequests } }
  /// Buffer clears (`DLE DC4` fn 8) executed.
  public var bufferClears: Int { locked { $0.bufferClears } }
  /// Commands the printer refused (unknown, malformed, or a feed in an unknown unit); the
  /// engine stops at the first, as a real printer's output would be wrong from there.
  public var refusedCommands: [String] { locked { $0.refused } }
  /// Commands received but not printed yet (the engine is stopped or busy).
  public var pendingCommands: Int { locked { $0.queue.count } }

  /// Prints a stream captured elsewhere (what a CUPS raw queue or a socket listener received):
  /// sends it on a connection of its own and waits (at most `seconds`) until every byte is
  /// received and every command executed or refused; the pages printed by it.
  public func replay(_ bytes: Data, seconds: Double = 30) throws -> [SimulatedPage] {
    let before = (pages: pages.count, bytes: bytesReceived)
    let fd = try Loopback.connect(port: port)
    defer { close(fd) }
    var sent = 0
    while sent < bytes.count {
      let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
      guard n > 0 else { throw RigError("replay: \(String(cString: strerror(errno)))") }
      sent += n
    }
    let done = waitUntil(seconds: seconds, poll: 0.01) {
      bytesReceived >= before.bytes + bytes.count && (pendingCommands == 0 || !refusedCommands.isEmpty)
    }
    guard done else { throw RigError("replay: the printer did not take the \(bytes.count) bytes in \(seconds) s") }
    return Array(pages.dropFirst(before.pages))
  }

  /// The answer to `DLE EOT n`: bits 1 and 4 set, 0 and 7 clear; the rest per n (Epson).
  public func statusByte(_ n: UInt8) -> UInt8 { locked { $0.statusByte(n) } }

  func locked<T>(_ body: (inout SimulatedPrinterState) -> T) -> T {
    lock.lock()
    defer { lock.unlock() }
    return body(&state)
  }

  /// Sends bytes to the host (under `lock`; a host that went away gets nothing).
  func reply(_ bytes: [UInt8], to fd: Int32) {
    guard fd >= 0, !bytes.isEmpty else { return }
    var bytes = bytes
    if devicePath == nil {
      _ = send(fd, &bytes, bytes.count, Int32(MSG_NOSIGNAL))
    } else {
      _ = write(fd, &bytes, bytes.count)
    }
  }

  /// Reads one connection (or the pty) until it ends, parsing as it goes.
  private func receive(from fd: Int32, closeWhenDone: Bool) {
    var parser = SimulatedCommandParser()
    parser.starModel = model.star
    var job = Data()
    var buffer = [UInt8](repeating: 0, count: 65536)
    let chunk = baud.map { max(1, $0 / 10 / 20) } ?? buffer.count  // bytes per 50 ms on a serial line
    while !locked({ $0.closed }) {
      var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      let ready = poll(&pfd, 1, 200)
      if ready < 0, errno == EINTR { continue }  // a signal is no end of the connection
      guard ready >= 0 else { break }
      if pfd.revents == 0 { continue }
      var n = read(fd, &buffer, chunk)
      if n < 0, errno == EINTR { continue }
      if n < 0, errno == EIO, !closeWhenDone {  // a pty with no one on the line
        usleep(20_000)
        continue
      }
      guard n > 0 else { break }
      var drop = false
      if closeWhenDone {
        locked { s in
          guard let left = s.disconnectAfter else { return }
          drop = n >= left
          n = min(n, left)
          s.disconnectAfter = drop ? nil : left - n
        }
      }
      let commands = parser.parse(buffer[0..<n])
      lock.lock()
      state.bytesReceived += n
      for command in commands {
        switch command.kind {
        case .realtimeStatus(let request):
          state.statusRequests += 1
          reply([state.statusByte(request)], to: fd)
        case .starStatusRequest:
          state.starStatusRequests += 1
          reply(state.starAutomaticStatus(ethernet: devicePath == nil), to: fd)
        case .clearBuffers:
          state.queue.removeAll()
          state.bufferClears += 1
          reply([0x37, 0x25, 0x00], to: fd)
        default:
          state.queue.append((command, fd))
          job += command.bytes
        }
      }
      lock.broadcast()
      lock.unlock()
      if baud != nil { usleep(50_000) }
      if drop { break }
    }
    lock.lock()
    if !job.isEmpty { state.printedJobs.append(job) }
    for i in state.queue.indices where state.queue[i].fd == fd { state.queue[i].fd = -1 }  // it still prints
    if state.asbTarget == fd { state.asbTarget = -1 }
    lock.unlock()
    if closeWhenDone { close(fd) }
  }
}

/// A printed page: `rows` of `width` dots, true = black.
public struct SimulatedPage: Equatable, Sendable {
  public var width: Int
  public var rows: [[Bool]]
  /// The cut that ended it (`partial`, `full`), nil for a page still on the printer.
  public var cut: String?
  /// Drawer kicks while printing it (pin 2 or 5).
  public var drawerKicks: [Int]
}
