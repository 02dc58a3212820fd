import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif
#if canImport(Glibc)
  import Glibc
#endif

/// The real `receipt serve` binary on a loopback port, for tests that kill and restart it.
public final class Daemon: @unchecked Sendable {
  private let lock = NSLock()
  private var boundPort: UInt16 = 0
  /// The port the running daemon bound (it binds port 0 itself: no port is chosen here and bound
  /// later, which another process could take meanwhile). Changes at every start.
  public var port: UInt16 { lock.withLock { boundPort } }
  private var logStart: UInt64 = 0
  /// The port the running daemon's IPP printers listen on (from its "receipt serve: ipp://…" or
  /// "ipps://…" line),
  /// nil while it has not said (or runs without IPP).
  public var ippPort: UInt16? {
    let start = lock.withLock { logStart }
    guard let data = try? Data(contentsOf: log), data.count > start else { return nil }
    let text = String(decoding: data.dropFirst(Int(start)), as: UTF8.self)
    guard
      let line = text.split(separator: "\n").first(where: {
        $0.hasPrefix("receipt serve: ipp://") || $0.hasPrefix("receipt serve: ipps://")
      }),
      let url = URL(string: String(line.dropFirst("receipt serve: ".count).prefix { $0 != " " }))
    else { return nil }
    return url.port.flatMap { UInt16(exactly: $0) }
  }
  let arguments: [String]
  let environment: [String: String]
  let log: URL
  private var process: ChildProcess?

  /// Runs the daemon under this program (e.g. `strace` with its options), if set.
  public var wrapper: [String] = []
  /// The daemon's process id while it runs.
  public var pid: Int32? { process?.pid }

  /// Whether `--port 0` goes before the arguments (false: the port comes from the arguments,
  /// the environment or the configuration, as a test of those chooses).
  let choosesPort: Bool

  /// Prepares (does not start) a daemon with `arguments` after `serve --port 0` (or after
  /// `serve` alone when `choosesPort` is false).
  public init(arguments: [String], environment: [String: String] = [:], log: URL, choosesPort: Bool = true) throws {
    self.arguments = arguments
    self.environment = environment
    self.log = log
    self.choosesPort = choosesPort
    _ = FileManager.default.createFile(atPath: log.path, contents: nil)
  }

  /// Starts it and waits until /healthz answers (at most 30 s).
  public func start() throws {
    let binary = try Tool.shippedBinary()
    let serve = ["serve"] + (choosesPort ? ["--port", "0"] : []) + arguments
    let (program, programArguments) =
      wrapper.isEmpty ? (binary, serve) : (wrapper[0], wrapper.dropFirst() + [binary] + serve)
    let logStart = (try? FileManager.default.attributesOfItem(atPath: log.path)[.size] as? UInt64) ?? 0
    lock.withLock { self.logStart = logStart }
    // In its log's directory (the test's own), not the checkout's: what a daemon writes where it
    // runs (with a PostgreSQL URL its archive and IPP certificate by default) stays out of the
    // repository under test.
    let process = try ChildProcess(
      program, Array(programArguments), environment: environment, stdout: .write(log, append: true),
      stderr: .standardOutput, directory: log.deletingLastPathComponent())
    self.process = process
    let deadline = Date().addingTimeInterval(30)
    lock.withLock { boundPort = 0 }
    while Date() < deadline {
      if port == 0, let bound = Self.announcedPort(in: log, from: logStart) { lock.withLock { boundPort = bound } }
      if port != 0, let response = try? request("GET", "/healthz", timeout: 1), response.status == 200 { return }
      guard process.isRunning else {
        let ended = process.wait()
        throw RigError(
          "receipt serve exited (\(ended.signal.map { "signal \($0)" } ?? "status \(ended.status)")): see \(log.path)")
      }
      Thread.sleep(forTimeInterval: 0.02)
    }
    throw RigError("receipt serve did not answer within 30 s (port \(port)): see \(log.path)")
  }

  /// The port in the daemon's "receipt serve: http://HOST:PORT/v1 …" line after `offset`.
  static func announcedPort(in log: URL, from offset: UInt64) -> UInt16? {
    guard let data = try? Data(contentsOf: log), data.count > offset else { return nil }
    let text = String(decoding: data.dropFirst(Int(offset)), as: UTF8.self)
    guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("receipt serve: http://") }),
      let url = URL(string: String(line.dropFirst("receipt serve: ".count).prefix { $0 != " " }))
    else { return nil }
    return url.port.flatMap { UInt16(exactly: $0) }
  }

  /// `kill -9`: no shutdown, no cleanup.
  public func kill9() {
    guard let process, process.isRunning else { return }
    process.send(SIGKILL)
    process.wait()
  }

  /// Sends `signal` (SIGSEGV: a crash as the kernel delivers one) and waits until the process
  /// has ended.
  public func crash(with signal: Int32 = SIGSEGV) {
    guard let process, process.isRunning else { return }
    process.send(signal)
    process.wait()
  }

  /// The daemon's peak resident memory so far (`VmHWM` in /proc), in bytes.
  public var peakMemory: Int? {
    guard let pid, let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }
    return line.flatMap { Int($0.split(separator: " ", omittingEmptySubsequences: true)[1]) }.map { $0 * 1024 }
  }

  /// Starts measuring the peak anew (`VmHWM` becomes the resident memory now: /proc/PID/clear_refs).
  public func resetPeakMemory() {
    guard let pid else { return }
    try? "5".write(toFile: "/proc/\(pid)/clear_refs", atomically: false, encoding: .utf8)
  }

  /// The CPU time the daemon has used (user + system, from /proc/PID/stat), in seconds.
  public var cpuSeconds: Double? {
    guard let pid, let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let close = stat.lastIndex(of: ")")
    else { return nil }
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
  }

  /// Sends SIGTERM and waits (at most `seconds`) for the process to end; returns its exit status.
  public func terminate(seconds: Double = 30) -> Int32? {
    stop(with: SIGTERM, seconds: seconds)
  }

  /// SIGINT (Ctrl-C in a terminal), then waits like ``terminate(seconds:)``.
  public func interrupt(seconds: Double = 30) -> Int32? {
    stop(with: SIGINT, seconds: seconds)
  }

  /// Sends `signal`, waits at most `seconds`; the exit status (the signal's number when one
  /// ended it), or nil when it had to be killed.
  private func stop(with signal: Int32, seconds: Double) -> Int32? {
    guard let process else { return nil }
    if process.isRunning { process.send(signal) }
    guard let ended = process.wait(seconds: seconds) else {
      kill9()
      return nil
    }
    return ended.signal ?? ended.status
  }

  deinit { kill9() }

  /// An HTTP answer.
  public struct Response: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: Data
    /// The body as a JSON object.
    public var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body) as? [String: Any]) ?? [:] }
  }

  /// One request on loopback; throws on connection errors (a killed daemon).
  public func request(
    _ method: String, _ path: String, body: Data? = nil, headers: [String: String] = [:], timeout: TimeInterval = 10
  ) throws -> Response {
    var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!, timeoutInterval: timeout)
    request.httpMethod = method
    request.httpBody = body
    if body != nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    let box = ResultBox()
    let done = DispatchSemaphore(value: 0)
    URLSession.shared.dataTask(with: request) { data, response, error in
      if let error {
        box.result = .failure(error)
      } else if let http = response as? HTTPURLResponse {
        let headers = Dictionary(
          http.allHeaderFields.map { ("\($0.key)".lowercased(), "\($0.value)") }, uniquingKeysWith: { a, _ in a })
        box.result = .success(Response(status: http.statusCode, headers: headers, body: data ?? Data()))
      }
      done.signal()
    }.resume()
    done.wait()
    guard let result = box.result else { throw RigError("no response") }
    return try result.get()
  }

  private final class ResultBox: @unchecked Sendable {
    var result: Result<Response, any Error>?
  }
}
