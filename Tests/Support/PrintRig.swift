import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A real print stack on loopback for the tests: dbus + avahi (ippeveprinter needs DNS-SD), an
/// `ippeveprinter` describing an 80 mm roll at 203 dpi, and a private `cupsd` (own config, own
/// port, `User lp`) with three queues: `roll` (IPP Everywhere to the ippeveprinter), `thermal`
/// (a PPD raster queue whose `file:` device captures what a driver would receive) and `raw`
/// (a raw queue to a loopback socket, like an ESC/POS printer). Started once per test process;
/// every process it starts is terminated at exit.
public final class PrintRig: @unchecked Sendable {
  public let server: String
  public let spool: URL
  public let thermalOutput: URL
  public let rawListener: SocketListener
  public let directory: URL
  /// The ippeveprinter's IPP URI.
  public let printerURI: String

  nonisolated(unsafe) private static var started: [ChildProcess] = []
  private static let lock = NSLock()
  nonisolated(unsafe) private static var shared: Result<PrintRig, any Error>?

  /// The rig, started on first use.
  public static func get() throws -> PrintRig {
    lock.lock()
    defer { lock.unlock() }
    if let shared { return try shared.get() }
    let result = Result { try PrintRig() }
    shared = result
    atexit { PrintRig.stopAll() }
    return try result.get()
  }

  private static func stopAll() {
    for p in started where p.isRunning { p.send(SIGTERM) }
  }

  private init() throws {
    // Directories of earlier test runs whose process is gone.
    for name in (try? FileManager.default.contentsOfDirectory(atPath: "/tmp")) ?? []
    where name.hasPrefix("receipt-rig-") {
      if let pid = Int32(name.dropFirst("receipt-rig-".count)), kill(pid, 0) != 0 {
        // Its watchdogs stop its daemons (dbus, avahi, cupsd …) within ~2 s of its exit; a rig
        // started meanwhile would see a dying avahi as running. Wait for them to be gone.
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline, (try? Tool.run("pgrep", ["-f", "kill -0 \(pid) "]).status) == 0 {
          Thread.sleep(forTimeInterval: 0.1)
        }
        try? FileManager.default.removeItem(atPath: "/tmp/\(name)")
      }
    }
    directory = URL(fileURLWithPath: "/tmp/receipt-rig-\(getpid())")
    try? FileManager.default.removeItem(at: directory)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try Self.startDNSSD(log: directory)
    spool = directory.appendingPathComponent("ipp-spool")
    try FileManager.default.createDirectory(at: spool, withIntermediateDirectories: true)
    let ippPort = try Self.freePort()
    let conf = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("roll80.conf")
    try Self.launch(
      "/usr/sbin/ippeveprinter",
      [
        "-r", "off", "-p", "\(ippPort)", "-a", conf.path, "-k", "-d", spool.path, "-c", "/bin/true",
        "Roll80-\(getpid())",
      ],
      log: directory.appendingPathComponent("ippeveprinter.log"))
    try Self.waitForPort(ippPort)
    printerURI = "ipp://127.0.0.1:\(ippPort)/ipp/print"

    let cups = directory.appendingPathComponent("cups")
    server = try Self.startCUPSD(in: cups, log: directory)

    // roll: IPP Everywhere. lpadmin exits 0 even when PPD generation fails, so check the PPD.
    let server = self.server
    try Self.lpadmin(
      ["-p", "roll", "-E", "-v", "ipp://127.0.0.1:\(ippPort)/ipp/print", "-m", "everywhere"], server: server)
    try Self.waitForPPD(cups.appendingPathComponent("ppd/roll.ppd"), queue: "roll")
    // thermal: a PPD raster driver queue; the pass-through filter shows what a driver receives.
    let output = cups.appendingPathComponent("out/thermal.ras")
    thermalOutput = output
    FileManager.default.createFile(atPath: output.path, contents: nil)
    try Self.run("/bin/chown", ["lp", output.path])
    // A no-op "-" filter runs no process, and a file: device only gets a process's output, so
    // the pass-through is a real program (root-owned, not writable by others, as cupsd demands).
    let bin = directory.appendingPathComponent("bin")
    try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
    let filter = bin.appendingPathComponent("passthrough")
    try "#!/bin/sh\nif [ -n \"$6\" ]; then exec cat \"$6\"; else exec cat; fi\n".write(
      to: filter, atomically: true, encoding: .utf8)
    try Self.run("/bin/chmod", ["755", bin.path, filter.path])
    let ppd = directory.appendingPathComponent("thermal.ppd")
    try Self.thermalPPD.replacingOccurrences(of: "@FILTER@", with: filter.path).write(
      to: ppd, atomically: true, encoding: .utf8)
    try Self.lpadmin(["-p", "thermal", "-E", "-v", "file://\(output.path)", "-P", ppd.path], server: server)
    // broken: a driver queue whose filter fails; jobs are aborted (printer-error-policy).
    let failing = bin.appendingPathComponent("failing")
    try "#!/bin/sh\necho 'ERROR: the test driver always fails' >&2\nexit 1\n".write(
      to: failing, atomically: true, encoding: .utf8)
    try Self.run("/bin/chmod", ["755", failing.path])
    let brokenPPD = directory.appendingPathComponent("broken.ppd")
    try Self.thermalPPD.replacingOccurrences(of: "@FILTER@", with: failing.path).write(
      to: brokenPPD, atomically: true, encoding: .utf8)
    try Self.lpadmin(
      [
        "-p", "broken", "-E", "-v", "file:///dev/null", "-P", brokenPPD.path, "-o", "printer-error-policy=abort-job",
      ], server: server)
    // raw: an ESC/POS printer on a loopback socket.
    let listener = try SocketListener()
    rawListener = listener
    try Self.lpadmin(["-p", "raw", "-E", "-v", "socket://127.0.0.1:\(listener.port)", "-m", "raw"], server: server)
    // Every other IPP Everywhere queue the tests use, made now, before any job: cupsd 2.4.2 was
    // seen to stop accepting image/pwg-raster on a queue in use when another queue was added
    // with `lpadmin -m everywhere` (and never recover until restarted).
    for name in Self.ippQueues {
      try Self.lpadmin(["-p", name, "-E", "-v", printerURI, "-m", "everywhere"], server: server)
      try Self.waitForPPD(cups.appendingPathComponent("ppd/\(name).ppd"), queue: name)
    }
    try Self.lpadmin(["-x", Self.removedQueue], server: server)
  }

  /// The IPP Everywhere queues made at start, one per test that stops or follows one.
  static let ippQueues = [
    "daemon-kill", "daemon-hold", "daemon-crash", "daemon-state", "daemon-stop", "daemon-incoming", "daemon-failover",
    "pg-failover", "pg-restart", "cli-held",
    removedQueue,
  ]
  /// A queue made and then removed at start (for the test of a removed printer).
  public static let removedQueue = "daemon-gone"

  /// A private cupsd (own port on loopback, `User lp`) with its files under `cups`, no queues;
  /// returns its "host:port".
  static func startCUPSD(in cups: URL, log: URL) throws -> String {
    let cupsPort = try Self.freePort()
    for sub in ["spool", "cache", "state", "log", "temp", "ppd", "out"] {
      try FileManager.default.createDirectory(at: cups.appendingPathComponent(sub), withIntermediateDirectories: true)
    }
    try Self.run("/bin/chmod", ["755", cups.deletingLastPathComponent().path])
    try Self.run("/bin/chown", ["-R", "lp", cups.path])
    try """
    Listen 127.0.0.1:\(cupsPort)
    LogLevel warn
    WebInterface No
    Browsing Off
    DefaultAuthType None
    <Location />
      Order allow,deny
      Allow all
    </Location>
    <Location /admin>
      Order allow,deny
      Allow all
    </Location>
    <Policy default>
      JobPrivateValues none
      <Limit All>
        Order deny,allow
      </Limit>
    </Policy>
    """.write(to: cups.appendingPathComponent("cupsd.conf"), atomically: true, encoding: .utf8)
    try """
    ServerRoot \(cups.path)
    RequestRoot \(cups.path)/spool
    CacheDir \(cups.path)/cache
    StateDir \(cups.path)/state
    TempDir \(cups.path)/temp
    ErrorLog \(cups.path)/log/error_log
    AccessLog \(cups.path)/log/access_log
    PageLog \(cups.path)/log/page_log
    FileDevice Yes
    User lp
    Group lp
    """.write(to: cups.appendingPathComponent("cups-files.conf"), atomically: true, encoding: .utf8)
    try Self.launch(
      "/usr/sbin/cupsd",
      [
        "-f", "-c", cups.appendingPathComponent("cupsd.conf").path, "-s",
        cups.appendingPathComponent("cups-files.conf").path,
      ],
      log: log.appendingPathComponent("cupsd.out"))
    try Self.waitForPort(cupsPort)
    return "127.0.0.1:\(cupsPort)"
  }

  /// A cupsd of its own with no queues at all (what a fresh machine has).
  public static func emptyCUPS() throws -> String { try privateCUPS().server }

  /// A cupsd of its own with no queues: its "host:port" and its files (`ppd/QUEUE.ppd`).
  public static func privateCUPS() throws -> (server: String, directory: URL) {
    let directory = try Scratch.directory("cups")
    let cups = directory.appendingPathComponent("cups")
    return (try startCUPSD(in: cups, log: directory), cups)
  }

  /// `lpadmin -p NAME -E -v URI -m everywhere` on `server` (a driverless queue made from the
  /// printer's IPP attributes), once its PPD exists in `directory`.
  public static func addEverywhereQueue(_ name: String, uri: String, server: String, directory: URL) throws {
    try lpadmin(["-p", name, "-E", "-v", uri, "-m", "everywhere"], server: server)
    try waitForPPD(directory.appendingPathComponent("ppd/\(name).ppd"), queue: name)
  }

  private static func lpadmin(_ arguments: [String], server: String) throws {
    try run("/usr/sbin/lpadmin", arguments, environment: ["CUPS_SERVER": server])
  }

  /// One of the IPP Everywhere queues made at start (see ``ippQueues``), for a test of its own.
  public func addQueue(_ name: String) throws {
    guard Self.ippQueues.contains(name), name != Self.removedQueue else {
      throw RigError("queue \(name) is not made by the rig; add it to PrintRig.ippQueues")
    }
  }

  /// Files the IPP printer received whose job name contains `text`, in the printer's job order.
  public func received(containing text: String) -> [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: spool.path)) ?? []
    return names.filter { $0.hasSuffix(".pwg") && $0.contains(text) }
      .sorted { (Int($0.prefix { $0.isNumber }) ?? 0) < (Int($1.prefix { $0.isNumber }) ?? 0) }
  }

  /// Prints a small PDF to `queue` with `lp` under a fresh title and returns the title: once
  /// ``hasReceived(_:)`` says so, every job queued before it on that queue has had its turn (a
  /// queue prints in order) — the condition to wait on before saying a queue printed nothing.
  public func printMarker(queue: String) throws -> String {
    let title = "marker-\(UUID().uuidString.prefix(8).lowercased())"  // ippeveprinter's file names are lower case
    try Self.run(
      "/usr/bin/lp", ["-d", queue, "-t", title, "/usr/share/cups/data/default.pdf"],
      environment: ["CUPS_SERVER": server])
    return title
  }

  /// Whether the IPP printer received a file (any format) whose job name contains `text`.
  public func hasReceived(_ text: String) -> Bool {
    ((try? FileManager.default.contentsOfDirectory(atPath: spool.path)) ?? []).contains { $0.contains(text) }
  }

  /// Empties the `thermal` queue's capture file before a test prints to it: cupsd's `file:`
  /// device writes over it without truncating it (seen with Debian's cupsd 2.4.2-3+deb12u10), so
  /// a short job would be read with the rest of a longer earlier one behind it. Truncated in
  /// place: the file stays lp's.
  public func emptyThermalOutput() throws {
    guard truncate(thermalOutput.path, 0) == 0 else { throw RigError("cannot empty \(thermalOutput.path)") }
  }

  /// Runs a CUPS command-line tool against the rig (cupsdisable, lpstat …).
  public func cupsTool(_ path: String, _ arguments: [String]) throws {
    try Self.run(path, arguments, environment: ["CUPS_SERVER": server])
  }

  /// dbus and avahi, unless the machine runs them. They run in the foreground under the watchdog
  /// (a daemon that forks keeps the descriptor Foundation's Process waits on, so waiting for
  /// `dbus-daemon --fork` never returns).
  private static func startDNSSD(log directory: URL) throws {
    waitForStaleDaemon("dbus-daemon")
    if !isRunning("dbus-daemon") {
      try FileManager.default.createDirectory(atPath: "/run/dbus", withIntermediateDirectories: true)
      try? FileManager.default.removeItem(atPath: "/run/dbus/pid")
      try? FileManager.default.removeItem(atPath: "/run/dbus/system_bus_socket")
      try launch(
        "/usr/bin/dbus-daemon", ["--system", "--nofork", "--nopidfile"],
        log: directory.appendingPathComponent("dbus.log"))
      try waitFor(path: "/run/dbus/system_bus_socket")
      claim("dbus-daemon")
    }
    waitForStaleDaemon("avahi-daemon")
    if !isRunning("avahi-daemon") {
      try? FileManager.default.removeItem(atPath: "/run/avahi-daemon/pid")
      try launch(
        "/usr/sbin/avahi-daemon", ["--no-drop-root", "--no-chroot"], log: directory.appendingPathComponent("avahi.log"))
      try waitFor(path: "/run/avahi-daemon/socket")
      claim("avahi-daemon")
    }
  }

  /// Records that this test process started the daemon `name` (its watchdog stops it when the
  /// process is gone).
  private static func claim(_ name: String) {
    try? String(getpid()).write(toFile: "/run/receipt-rig-\(name).owner", atomically: true, encoding: .utf8)
  }

  /// A daemon started by a rig whose test process is gone is about to be stopped by its watchdog
  /// (within 1.5 s): reusing it would lose it mid-test (ippeveprinter exits when avahi does), so
  /// wait until it is gone and start one of our own.
  private static func waitForStaleDaemon(_ name: String) {
    guard let text = try? String(contentsOfFile: "/run/receipt-rig-\(name).owner", encoding: .utf8),
      let owner = Int32(text), owner != getpid(), kill(owner, 0) != 0
    else { return }
    for _ in 0..<50 where isRunning(name) { Thread.sleep(forTimeInterval: 0.1) }
  }

  /// lpadmin exits 0 even when PPD generation fails, and on a loaded machine cupsd writes the
  /// PPD a moment after lpadmin returns: wait for it (at most 10 s).
  private static func waitForPPD(_ file: URL, queue: String) throws {
    do {
      try waitFor(path: file.path)
    } catch {
      throw RigError("lpadmin did not generate the IPP Everywhere PPD for \(queue)")
    }
  }

  /// Waits (at most 10 s) for a file or socket to appear.
  private static func waitFor(path: String) throws {
    for _ in 0..<100 {
      if FileManager.default.fileExists(atPath: path) { return }
      Thread.sleep(forTimeInterval: 0.1)
    }
    throw RigError("\(path) did not appear")
  }

  /// A live process of that name (zombies do not count: a previous rig's killed daemon can stay a
  /// zombie for a moment until init reaps it).
  private static func isRunning(_ name: String) -> Bool {
    guard let result = try? Tool.run("pgrep", ["-x", name]), result.status == 0 else { return false }
    return result.stdout.split(separator: "\n").contains { pid in
      let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
      guard let end = stat.lastIndex(of: ")") else { return false }
      let state = stat[stat.index(after: end)...].split(separator: " ").first
      return state != nil && state != "Z" && state != "X"
    }
  }

  /// Starts a daemon under a shell watchdog that stops it when this test process is gone (the
  /// test runner does not reliably run exit handlers), so no rig process outlives the tests.
  /// A daemon that does not end on SIGTERM is killed a second later.
  ///
  /// The daemon starts a session of its own, and the SIGKILL goes to the whole session: cupsd's
  /// backends (each in a process group of its own, as cupsd starts them) outlived a cupsd killed
  /// with a job in hand, and went on retrying printers whose ports later tests could own. The
  /// session's ID is the daemon's PID, which cannot be reused before the watchdog reaps it
  /// (`wait`, after the kill): the kill reaches only this daemon's processes.
  private static func launch(_ path: String, _ arguments: [String], log: URL) throws {
    // setsid: the watchdog gets its own session, so the runner killing the test's process group
    // does not take the watchdog down before it stops the daemon.
    let process = try ChildProcess(
      "/usr/bin/setsid", ["/bin/sh", "-c", watchdog(owner: getpid()), path] + arguments, stdout: .write(log),
      stderr: .standardOutput, ownGroup: false)
    started.append(process.reapWhenEnded())
  }

  /// The watchdog's script (`sh -c SCRIPT DAEMON ARGUMENTS…`, in a session of its own): runs the
  /// daemon in a session of its own and stops it, and every process of that session, when the
  /// process `owner` is gone, when the daemon ends, or on SIGTERM or SIGINT.
  public static func watchdog(owner: Int32) -> String {
    """
    /usr/bin/setsid "$0" "$@" & child=$!
    stop() { kill $child 2>/dev/null; sleep 1; pkill -9 -s $child 2>/dev/null; wait $child; }
    trap 'stop; exit 0' TERM INT
    while kill -0 \(owner) 2>/dev/null && kill -0 $child 2>/dev/null; do sleep 0.5; done
    stop
    """
  }

  private static func run(_ path: String, _ arguments: [String], environment: [String: String] = [:]) throws {
    let ended = try ChildProcess(path, arguments, environment: environment).wait()
    guard ended == .init(status: 0, signal: nil) else {
      throw RigError(
        "\(path) \(arguments.joined(separator: " ")) exited \(ended.signal.map { "with signal \($0)" } ?? "\(ended.status)")"
      )
    }
  }

  /// A free loopback TCP port of this process's ``TestPorts``.
  static func freePort() throws -> UInt16 { try TestPorts.free() }

  /// Waits (at most 10 s) until something listens on a loopback port.
  static func waitForPort(_ port: UInt16) throws {
    for _ in 0..<100 {
      let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_addr.s_addr = inet_addr("127.0.0.1")
      address.sin_port = port.bigEndian
      let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
      }
      close(fd)
      if connected == 0 { return }
      Thread.sleep(forTimeInterval: 0.1)
    }
    throw RigError("nothing listens on 127.0.0.1:\(port)")
  }

  /// A PPD for a CUPS raster thermal printer: 80 mm roll, 203 dpi, custom lengths, and a
  /// pass-through filter so the `file:` device receives the CUPS raster a driver would get.
  static let thermalPPD = """
    *PPD-Adobe: "4.3"
    *FormatVersion: "4.3"
    *FileVersion: "1.0"
    *LanguageVersion: English
    *LanguageEncoding: ISOLatin1
    *PCFileName: "THERMAL.PPD"
    *Manufacturer: "receipt"
    *Product: "(Thermal80)"
    *ModelName: "receipt test thermal 80mm"
    *ShortNickName: "receipt test thermal 80mm"
    *NickName: "receipt test thermal 80mm"
    *PSVersion: "(3010.000) 0"
    *LanguageLevel: "3"
    *ColorDevice: False
    *DefaultColorSpace: Gray
    *FileSystem: False
    *Throughput: "1"
    *LandscapeOrientation: Plus90
    *TTRasterizer: Type42
    *cupsVersion: 2.4
    *cupsModelNumber: 0
    *cupsManualCopies: True
    *cupsFilter2: "application/vnd.cups-raster application/vnd.cups-raster 0 @FILTER@"
    *OpenUI *PageSize/Media Size: PickOne
    *OrderDependency: 10 AnySetup *PageSize
    *DefaultPageSize: X80MMY200MM
    *PageSize X80MMY200MM/80 x 200 mm: "<</PageSize[226.77 566.93]/ImagingBBox null>>setpagedevice"
    *CloseUI: *PageSize
    *OpenUI *PageRegion: PickOne
    *OrderDependency: 10 AnySetup *PageRegion
    *DefaultPageRegion: X80MMY200MM
    *PageRegion X80MMY200MM/80 x 200 mm: "<</PageSize[226.77 566.93]/ImagingBBox null>>setpagedevice"
    *CloseUI: *PageRegion
    *DefaultImageableArea: X80MMY200MM
    *ImageableArea X80MMY200MM/80 x 200 mm: "0 0 226.77 566.93"
    *DefaultPaperDimension: X80MMY200MM
    *PaperDimension X80MMY200MM/80 x 200 mm: "226.77 566.93"
    *VariablePaperSize: True
    *MaxMediaWidth: "226.77"
    *MaxMediaHeight: "8503.94"
    *HWMargins: 0 0 0 0
    *CustomPageSize True: "pop pop pop <</PageSize[5 -2 roll]/ImagingBBox null>>setpagedevice"
    *ParamCustomPageSize Width: 1 points 56.69 226.77
    *ParamCustomPageSize Height: 2 points 56.69 8503.94
    *ParamCustomPageSize WidthOffset: 3 points 0 0
    *ParamCustomPageSize HeightOffset: 4 points 0 0
    *ParamCustomPageSize Orientation: 5 int 0 0
    *DefaultResolution: 203dpi
    *Resolution 203dpi/203 DPI: "<</HWResolution[203 203]>>setpagedevice"

    """
}

/// A test rig failure with what went wrong.
public struct RigError: Error, CustomStringConvertible {
  public var description: String
  public init(_ description: String) { self.description = description }
}

/// A loopback TCP listener that records everything sent to it (a stand-in ESC/POS printer).
public final class SocketListener: @unchecked Sendable {
  public let port: UInt16
  private let fd: Int32
  private let lock = NSLock()
  private var received: [Data] = []

  /// Listens on `port`, or on a port of its own choosing (0).
  public init(port requested: UInt16 = 0) throws {
    (fd, port) = try Loopback.listen(port: requested)
    // The accept loop holds the listener (it serves for the rest of the process): with an
    // unowned reference, a listener a test had let go crashed the process when a connection it
    // was still reading ended.
    let thread = Thread { self.acceptLoop() }
    thread.start()
  }

  private func acceptLoop() {
    while true {
      let client = accept(fd, nil, nil)
      guard client >= 0 else { return }
      var data = Data()
      var buffer = [UInt8](repeating: 0, count: 65536)
      while true {
        let n = recv(client, &buffer, buffer.count, 0)
        if n <= 0 { break }
        data.append(contentsOf: buffer[0..<n])
      }
      close(client)
      // A status probe (DLE EOT 1…4 alone) is not a print job: a printer that does not answer
      // it just takes the bytes, and the connection carried nothing to print.
      if data == Data([0x10, 0x04, 1, 0x10, 0x04, 2, 0x10, 0x04, 3, 0x10, 0x04, 4]) { continue }
      lock.lock()
      received.append(data)
      lock.unlock()
    }
  }

  /// Waits (at most `timeout`) for the `count`-th connection's data.
  public func connection(_ index: Int, timeout: TimeInterval = 30) -> Data? {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      lock.lock()
      let data = received.count > index ? received[index] : nil
      lock.unlock()
      if let data { return data }
      Thread.sleep(forTimeInterval: 0.1)
    }
    return nil
  }

  /// Connections received so far.
  public var count: Int {
    lock.lock()
    defer { lock.unlock() }
    return received.count
  }
}

extension PrintRig {
  /// A free loopback port (nothing listens on it).
  public static func freePortForTests() throws -> UInt16 { try freePort() }
}
