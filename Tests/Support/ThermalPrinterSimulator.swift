import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A stand-in for an ESC/POS thermal printer on TCP (hardware that cannot exist here): it
/// parses the command stream as a printer does — raster payloads are skipped by their length, so
/// image bytes are never taken for commands — answers `DLE EOT n` at once with the status bytes
/// of Epson's layout (written here from the specification, independently of the code under
/// test), and can be told to run out of paper, open its cover or have a cutter error.
public final class ThermalPrinterSimulator: @unchecked Sendable {  // state behind `lock`
  public let port: UInt16
  private let fd: Int32
  private let lock = NSLock()
  private var _paperEnd = false
  private var _paperNearEnd = false
  private var _coverOpen = false
  private var _cutterError = false
  private var printed: [Data] = []
  private var statusRequests = 0

  public init() throws {
    (fd, port) = try Loopback.listen()
    let fd = self.fd
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
        self.serve(client)
      }
    }.start()
  }

  deinit {
    shutdown(fd, Int32(SHUT_RDWR))
  }

  public func set(paperEnd: Bool? = nil, paperNearEnd: Bool? = nil, coverOpen: Bool? = nil, cutterError: Bool? = nil) {
    lock.lock()
    defer { lock.unlock() }
    if let paperEnd { _paperEnd = paperEnd }
    if let paperNearEnd { _paperNearEnd = paperNearEnd }
    if let coverOpen { _coverOpen = coverOpen }
    if let cutterError { _cutterError = cutterError }
  }

  /// Print data received, one entry per connection that sent any (status requests excluded).
  public var jobs: [Data] {
    lock.lock()
    defer { lock.unlock() }
    return printed
  }

  public var statusRequestCount: Int {
    lock.lock()
    defer { lock.unlock() }
    return statusRequests
  }

  /// The answer to `DLE EOT n`: bits 1 and 4 set, 0 and 7 clear; the rest per n (Epson).
  public func statusByte(_ n: UInt8) -> UInt8 {
    lock.lock()
    defer { lock.unlock() }
    var b: UInt8 = 0b0001_0010
    let error = _cutterError
    switch n {
    case 1: if _paperEnd || _coverOpen || error { b |= 1 << 3 }  // offline
    case 2:
      if _coverOpen { b |= 1 << 2 }
      if _paperEnd { b |= 1 << 5 }  // printing stopped by paper end
      if error { b |= 1 << 6 }
    case 3: if _cutterError { b |= 1 << 3 }
    default:  // 4: roll paper sensor; near end bits 2-3, end bits 5-6
      if _paperNearEnd || _paperEnd { b |= 0b0000_1100 }
      if _paperEnd { b |= 0b0110_0000 }
    }
    return b
  }

  private func serve(_ client: Int32) {
    var buffer = [UInt8](repeating: 0, count: 65536)
    var pending: [UInt8] = []
    var job = Data()
    var skip = 0  // raster payload bytes still to come
    while true {
      let n = recv(client, &buffer, buffer.count, 0)
      if n <= 0 { break }
      pending += buffer[0..<n]
      var i = 0
      while i < pending.count {
        if skip > 0 {
          let take = min(skip, pending.count - i)
          job.append(contentsOf: pending[i..<(i + take)])
          skip -= take
          i += take
          continue
        }
        let rest = pending.count - i
        if pending[i] == 0x10, rest >= 3, pending[i + 1] == 0x04 {  // DLE EOT n
          lock.lock()
          statusRequests += 1  // counted before answering: whoever reads the answer sees the count
          lock.unlock()
          var reply = statusByte(pending[i + 2])
          _ = send(client, &reply, 1, Int32(MSG_NOSIGNAL))
          i += 3
        } else if pending[i] == 0x1D, rest >= 2, pending[i + 1] == 0x76 {  // GS v 0 m xL xH yL yH
          guard rest >= 8 else { break }
          job.append(contentsOf: pending[i..<(i + 8)])
          skip = (Int(pending[i + 4]) | Int(pending[i + 5]) << 8) * (Int(pending[i + 6]) | Int(pending[i + 7]) << 8)
          i += 8
        } else if pending[i] == 0x10 || pending[i] == 0x1D, rest < 3 {
          break  // wait for the rest of the command
        } else {
          job.append(pending[i])
          i += 1
        }
      }
      pending.removeFirst(i)
    }
    close(client)
    if !job.isEmpty {
      lock.lock()
      printed.append(job)
      lock.unlock()
    }
  }
}
