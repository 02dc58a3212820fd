import Foundation

/// One command as the simulated printer's receive side splits the stream, with its bytes.
struct SimulatedCommand {
  enum Kind {
    case realtimeStatus(UInt8), clearBuffers, initialize
    /// Star `ESC ACK SOH`: the automatic status, at once.
    case starStatusRequest
    /// `GS v 0`: rows of `widthBytes` bytes each.
    case band(widthBytes: Int, rows: Int, data: [UInt8])
    /// Star `b n1 n2`: one row.
    case starRow([UInt8])
    /// ESC/POS `ESC J n` (n vertical motion units); Star `ESC * r Y n NUL` (n dots).
    case feed(Int), starFeed(Int)
    case cut(String), drawer(Int), automaticStatus(UInt8), processID(String)
    /// ESC/POS `GS P x y`: motion units (0: the printer's default).
    case motionUnits(x: Int, y: Int)
    /// Star `ESC * r <letter> n NUL`.
    case starSetting(Character, Int)
    /// A command the simulator does not know or whose parameters are out of range: a real
    /// printer would misread it, so the simulator stops there.
    case refused(String)
  }
  var kind: Kind
  var bytes: [UInt8]
}

/// Splits the byte stream into commands however it arrives (ESC/POS and Star raster).
public struct SimulatedCommandParser {
  /// The printer speaks Star's commands only (a Star model): ESC/POS real-time commands are data
  /// to it, refused here.
  var starModel = false
  private var pending: [UInt8] = []
  private var starRaster = false
  private var star = false
  /// Bytes of the stream parsed before `pending`, and the last of them (a refused byte names
  /// where it came and what came before it, so a misread stream can be traced).
  private var consumed = 0
  private var recent: [UInt8] = []

  mutating func parse(_ bytes: ArraySlice<UInt8>) -> [SimulatedCommand] {
    pending += bytes
    var commands: [SimulatedCommand] = []
    var i = 0
    while i < pending.count, let (kind, length) = command(at: i) {
      commands.append(SimulatedCommand(kind: kind, bytes: Array(pending[i..<(i + length)])))
      i += length
    }
    recent = Array((recent + pending[0..<i]).suffix(24))
    consumed += i
    pending.removeFirst(i)
    return commands
  }

  /// Where byte `i` of `pending` is in the stream, and the bytes before it, in hex.
  private func place(_ i: Int) -> String {
    let before = (recent + pending[0..<i]).suffix(24).map { String(format: "%02x", $0) }.joined(separator: " ")
    return " (stream byte \(consumed + i), after: \(before))"
  }

  /// The command at `i` and its length; nil: it is not complete yet.
  private mutating func command(at i: Int) -> (SimulatedCommand.Kind, Int)? {
    let p = pending
    let rest = p.count - i
    func byte(_ k: Int) -> Int? { i + k < p.count ? Int(p[i + k]) : nil }
    func untilNUL(from k: Int) -> (String, Int)? {
      guard let nul = p[(i + k)...].firstIndex(of: 0) else { return nil }
      return (String(decoding: p[(i + k)..<nul], as: UTF8.self), nul - i + 1)
    }
    switch p[i] {
    case 0x10 where starModel:  // no Star command: a Star printer would print it
      return (.refused("DLE (an ESC/POS real-time command) sent to a Star printer" + place(i)), 1)
    case 0x10:  // DLE
      guard let b1 = byte(1), let b2 = byte(2) else { return nil }
      if b1 == 0x04 { return (.realtimeStatus(UInt8(b2)), 3) }
      if b1 == 0x14, b2 == 8 { return rest >= 10 ? (.clearBuffers, 10) : nil }
      if b1 == 0x14, b2 == 1 { return rest >= 5 ? (.drawer(p[i + 3] == 0 ? 2 : 5), 5) : nil }
      return (.refused(String(format: "DLE 0x%02X", b1)), 2)
    case 0x1B:  // ESC
      guard let b1 = byte(1) else { return nil }
      switch b1 {
      case 0x40: return (.initialize, 2)
      case 0x4A: return byte(2).map { (.feed($0), 3) }
      case 0x70:  // ESC p m t1 t2: m = 0/48 pin 2, 1/49 pin 5 (Epson ESC/POS reference, ESC p)
        guard rest >= 5 else { return nil }
        guard [0, 1, 48, 49].contains(p[i + 2]) else { return (.refused("ESC p m = \(p[i + 2])"), 5) }
        return (.drawer(p[i + 2] == 0 || p[i + 2] == 48 ? 2 : 5), 5)
      case 0x0C: return byte(2).map { _ in (.cut("star"), 3) }  // ESC FF NUL / ESC FF EOT
      // ESC ACK SOH (STAR Line Mode Command Specifications Rev. 0.00 p. 3-70; STAR Graphic Mode
      // Command Specifications Rev. 2.32, 3-1-3): a Star printer's status request.
      case 0x06 where starModel:
        guard let b2 = byte(2) else { return nil }
        return b2 == 0x01 ? (.starStatusRequest, 3) : (.refused(String(format: "ESC ACK 0x%02X", b2)), 3)
      case 0x2A where byte(2) == 0x72:  // ESC * r
        guard let letter = byte(3) else { return nil }
        star = true
        switch letter {
        case 0x41:
          starRaster = true
          return (.starSetting("A", 0), 4)
        case 0x42:
          starRaster = false
          return (.starSetting("B", 0), 4)
        case 0x43: return (.starSetting("C", 0), 4)
        default:
          guard let (text, length) = untilNUL(from: 4) else { return nil }
          let n = Int(text.filter(\.isNumber)) ?? 0
          return letter == 0x59
            ? (.starFeed(n), length) : (.starSetting(Character(UnicodeScalar(UInt8(letter))), n), length)
        }
      default: return (.refused(String(format: "ESC 0x%02X", b1)), 2)
      }
    case 0x1D:  // GS
      guard let b1 = byte(1) else { return nil }
      switch b1 {
      case 0x76:  // GS v 0 m xL xH yL yH d…
        guard rest >= 8 else { return nil }
        let x = Int(p[i + 4]) | Int(p[i + 5]) << 8
        let y = Int(p[i + 6]) | Int(p[i + 7]) << 8
        guard rest >= 8 + x * y else { return nil }
        // m = 0/48 normal; 1–3/49–51 double width/height, which this simulator does not print.
        guard p[i + 2] == 0x30, [0, 48].contains(p[i + 3]), x > 0, y > 0 else {
          return (.refused("GS v \(p[i + 2]) m = \(p[i + 3]), x = \(x), y = \(y)"), 8 + x * y)
        }
        return (.band(widthBytes: x, rows: y, data: Array(p[(i + 8)..<(i + 8 + x * y)])), 8 + x * y)
      case 0x50:  // GS P x y
        guard let x = byte(2), let y = byte(3) else { return nil }
        return (.motionUnits(x: x, y: y), 4)
      case 0x56:  // GS V m [n]: 0/48 full, 1/49 partial; 65/66 feed (n units) and cut
        guard let m = byte(2) else { return nil }
        if [65, 66].contains(m) { return byte(3).map { _ in (.cut(m == 65 ? "full" : "partial"), 4) } }
        guard [0, 1, 48, 49].contains(m) else { return (.refused("GS V m = \(m)"), 3) }
        return (.cut([0, 48].contains(m) ? "full" : "partial"), 3)
      case 0x61: return byte(2).map { (.automaticStatus(UInt8($0)), 3) }
      case 0x28:  // GS ( X pL pH …
        guard rest >= 5 else { return nil }
        let length = 5 + Int(p[i + 3]) + Int(p[i + 4]) * 256
        guard rest >= length else { return nil }
        if p[i + 2] == 0x48, length == 11, p[i + 5] == 48, p[i + 6] == 48 {
          return (.processID(String(decoding: p[(i + 7)..<(i + 11)], as: UTF8.self)), length)
        }
        return (.refused(String(format: "GS ( 0x%02X", p[i + 2])), length)
      default: return (.refused(String(format: "GS 0x%02X", b1)), 2)
      }
    case 0x62 where starRaster:  // b n1 n2 d…
      guard rest >= 3 else { return nil }
      let k = Int(p[i + 1]) | Int(p[i + 2]) << 8
      return rest >= 3 + k ? (.starRow(Array(p[(i + 3)..<(i + 3 + k)])), 3 + k) : nil
    case 0x07 where star && !starRaster: return (.drawer(2), 1)
    case 0x1A where star && !starRaster: return (.drawer(5), 1)
    default:
      // Text or a control this simulator does not print (receipt sends raster only).
      return (.refused(String(format: "byte 0x%02X", p[i]) + place(i)), 1)
    }
  }
}

extension SimulatedCommandParser {
  /// A whole stream split as the printer's receive side splits it (``ThermalPrinterSimulator``'s
  /// parser, written from the vendors' references): the dot rows its bands and feeds make, the
  /// commands refused, and the bytes left over at the end (a command cut short).
  public static func strictlyRead(_ bytes: Data) -> (rows: Int, refused: [String], leftover: Int) {
    var parser = SimulatedCommandParser()
    let commands = parser.parse(ArraySlice(bytes))
    var refused: [String] = []
    for command in commands {
      if case .refused(let what) = command.kind { refused.append(what) }
    }
    return (commands.reduce(0) { $0 + $1.rows }, refused, parser.pendingCount)
  }

  /// Bytes received and not yet a whole command.
  var pendingCount: Int { pending.count }
}

extension SimulatedCommand {
  /// Dot rows the command prints or feeds.
  var rows: Int {
    switch kind {
    case .band(_, let rows, _): rows
    case .starRow: 1
    case .feed(let n), .starFeed(let n): n
    default: 0
    }
  }
}

/// What the simulated printer holds.
struct SimulatedPrinterState {
  var paperEnd = false, paperNearEnd = false, coverOpen = false, cutterError = false
  var rowsUntilPaperOut: Int?
  var disconnectAfter: Int?
  var rowsPerSecond: Double?
  var closed = false
  /// Received commands not printed yet, with the connection each came on (-1: gone).
  var queue: [(command: SimulatedCommand, fd: Int32)] = []
  var printedJobs: [Data] = []
  var finished: [SimulatedPage] = []
  var current: SimulatedPage?
  var answeredProcessIDs: [String] = []
  var statusRequests = 0
  var starStatusRequests = 0
  var bytesReceived = 0
  var bufferClears = 0
  var asbTarget: Int32 = -1
  var starFFMode = 13
  /// The vertical motion unit (units per inch; nil: the model's default is unknown and no
  /// `GS P` has set one) and the part of a dot row fed but not yet moved.
  var verticalUnits: Int?
  var feedRemainder = 0
  /// Commands refused; the engine stops at the first.
  var refused: [String] = []

  var pages: [SimulatedPage] { finished + (current.map { [$0] } ?? []) }
  var stopped: Bool { paperEnd || coverOpen || cutterError || !refused.isEmpty }

  /// The answer to `DLE EOT n` (Epson): bits 1 and 4 set, 0 and 7 clear.
  func statusByte(_ n: UInt8) -> UInt8 {
    var b: UInt8 = 0b0001_0010
    switch n {
    case 1: if stopped { b |= 1 << 3 }  // offline
    case 2:
      if coverOpen { b |= 1 << 2 }
      if paperEnd { b |= 1 << 5 }  // printing stopped by paper end
      if cutterError { b |= 1 << 6 }
    case 3: if cutterError { b |= 1 << 3 }
    default:  // 4: roll paper sensor; near end bits 2-3, end bits 5-6
      if paperNearEnd || paperEnd { b |= 0b0000_1100 }
      if paperEnd { b |= 0b0110_0000 }
    }
    return b
  }

  /// A Star printer's automatic status, as `ESC ACK SOH` gets it, written from the STAR Line Mode
  /// Command Specifications Rev. 0.00, Appendix 5-2-3 (pp. 5-7…5-11): nine bytes (status version
  /// 3, "up to printer status 7 (9th byte)"); header 1 is that count in bits 1–3 and 5 with bit 0
  /// set (9 = 1001b: bits 1 and 5, 23h); header 2 the version the same way (3: 06h), bit 7 set on
  /// Ethernet, where two length bytes (0: no status data) follow (dot-impact specification Rev.
  /// 0.70 p. 5-7). Printer status 1: cover open bit 5, offline bit 3; status 2: autocutter error
  /// bit 3; status 4: paper end bit 3, near end (inner sensor) bit 2.
  func starAutomaticStatus(ethernet: Bool) -> [UInt8] {
    var bytes: [UInt8] = [0x23, ethernet ? 0x86 : 0x06, 0, 0, 0, 0, 0, 0, 0]
    if coverOpen { bytes[2] |= 1 << 5 }
    if stopped { bytes[2] |= 1 << 3 }
    if cutterError { bytes[3] |= 1 << 3 }
    if paperEnd { bytes[5] |= 1 << 3 }
    if paperNearEnd || paperEnd { bytes[5] |= 1 << 2 }
    return bytes + (ethernet ? [0, 0] : [])
  }

  /// The automatic status back packet (Epson `GS a`): 1st byte bit 4 fixed on, bit 3 offline,
  /// bit 5 cover open; 2nd bit 3 autocutter error; 3rd bits 0–1 near end, 2–3 paper end.
  var automaticStatusPacket: [UInt8] {
    [
      0x10 | (stopped ? 0x08 : 0) | (coverOpen ? 0x20 : 0), cutterError ? 0x08 : 0,
      (paperNearEnd || paperEnd ? 0x03 : 0) | (paperEnd ? 0x0C : 0), 0,
    ]
  }
}

extension ThermalPrinterSimulator {
  /// Sends automatic status where it is enabled (under `lock`).
  func statusChanged() {
    if state.asbTarget >= 0 { reply(state.automaticStatusPacket, to: state.asbTarget) }
  }

  /// The print engine: works through the queue in order while the printer can print.
  func startEngine() {
    Thread { [weak self] in
      while let self {
        self.lock.lock()
        while !self.state.closed, self.state.queue.isEmpty || self.state.stopped { self.lock.wait() }
        if self.state.closed {
          self.lock.unlock()
          return
        }
        let (command, fd) = self.state.queue[0]
        if command.rows > 0, let left = self.state.rowsUntilPaperOut, left <= 0 {
          self.state.paperEnd = true  // the roll ran out: what is left waits for new paper
          self.state.rowsUntilPaperOut = nil
          if var torn = self.state.current {  // the end of the old roll: a page of its own
            torn.cut = "paper-out"
            self.state.finished.append(torn)
            self.state.current = nil
          }
          self.statusChanged()
          self.lock.unlock()
          continue
        }
        self.state.queue.removeFirst()
        self.execute(command, from: fd)
        let pace = self.state.rowsPerSecond.map { Double(command.rows) / $0 } ?? 0
        self.lock.unlock()
        if pace > 0 { Thread.sleep(forTimeInterval: pace) }
      }
    }.start()
  }

  /// Prints one command (under `lock`).
  private func execute(_ command: SimulatedCommand, from fd: Int32) {
    func newRows(_ rows: [[Bool]]) {
      if state.current == nil { state.current = SimulatedPage(width: headDots, rows: [], cut: nil, drawerKicks: []) }
      state.current!.rows += rows
      if let left = state.rowsUntilPaperOut { state.rowsUntilPaperOut = left - rows.count }
    }
    func row(_ bytes: ArraySlice<UInt8>) -> [Bool] {
      var dots = [Bool](repeating: false, count: headDots)
      for (k, b) in bytes.enumerated() {
        for bit in 0..<8 where k * 8 + bit < headDots { dots[k * 8 + bit] = b & (0x80 >> bit) != 0 }
      }
      return dots
    }
    switch command.kind {
    case .band(let width, let rows, let data):
      newRows((0..<rows).map { row(data[($0 * width)..<(($0 + 1) * width)]) })
    case .starRow(let bytes):
      newRows([row(bytes[...])])
    case .feed(let n):
      // ESC J n: n vertical motion units; the paper moves whole dot rows (the mechanical pitch
      // of the TM-T88 is 1/360 inch, half a row: two half rows make one).
      guard let units = state.verticalUnits else {
        state.refused.append("ESC J \(n) before GS P: this model's default vertical unit is unknown")
        return
      }
      let total = n * model.dpi + state.feedRemainder
      state.feedRemainder = total % units
      newRows(Array(repeating: [Bool](repeating: false, count: headDots), count: total / units))
    case .starFeed(let n):
      newRows(Array(repeating: [Bool](repeating: false, count: headDots), count: n))
    case .motionUnits(_, let y):
      state.verticalUnits = y == 0 ? model.defaultVerticalUnits : y
      state.feedRemainder = 0
    case .cut(let kind):
      var page = state.current ?? SimulatedPage(width: headDots, rows: [], cut: nil, drawerKicks: [])
      page.cut = kind == "star" ? (state.starFFMode == 9 ? "full" : state.starFFMode == 13 ? "partial" : "none") : kind
      state.finished.append(page)
      state.current = nil
    case .drawer(let pin):
      if state.current == nil { state.current = SimulatedPage(width: headDots, rows: [], cut: nil, drawerKicks: []) }
      state.current!.drawerKicks.append(pin)
    case .automaticStatus(let n):
      state.asbTarget = n == 0 ? -1 : fd
      statusChanged()  // sent at once when enabled
    case .processID(let id):
      state.answeredProcessIDs.append(id)
      reply([0x37, 0x22] + Array(id.utf8) + [0x00], to: fd)
    case .starSetting(let letter, let n):
      if letter == "F" { state.starFFMode = n }
    case .initialize:
      state.verticalUnits = model.defaultVerticalUnits
      state.feedRemainder = 0
    case .refused(let what):
      state.refused.append(what)
    case .realtimeStatus, .clearBuffers, .starStatusRequest:
      break
    }
  }
}
