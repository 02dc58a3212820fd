import Foundation
import ReceiptTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The shipped daemon binary keeps the README's promises: the same order retried with its key
/// is the same job, an answer comes only after fsync, one daemon per queue file, a crafted logo
/// is a 422 (crash accounting: CrashAccountingTests).
@Suite(.serialized) struct DaemonEndToEndTests {
  var templates: String { Tool.packageRoot.appendingPathComponent("Templates").path }

  /// A daemon with a directory printer on a fresh queue, started.
  func daemon(_ extra: [String] = [], wrapper: [String] = []) throws -> (Daemon, URL) {
    let work = try Tool.temporaryDirectory()
    let archive = work.appendingPathComponent("archive")
    try FileManager.default.createDirectory(at: archive, withIntermediateDirectories: true)
    let daemon = try Daemon(
      arguments: [
        "--db", work.appendingPathComponent("queue.sqlite").path, "--printer", "archive=dir:\(archive.path)",
        "--templates", templates,
      ] + extra,
      log: work.appendingPathComponent("serve.log"))
    daemon.wrapper = wrapper
    try daemon.start()
    return (daemon, work)
  }

  var order: String {
    (try? String(contentsOfFile: "\(templates)/Examples/small.json", encoding: .utf8)) ?? "{}"
  }

  @Test func aRetryOfAnOrderWithArraysIsTheSameJobAndADifferentOneIs409() throws {
    let (daemon, _) = try daemon()
    defer { _ = daemon.terminate() }
    let body = #"{"template": "receipt", "copies": 2, "locale": "de_DE", "data": "# + order + "}"
    let first = try daemon.request("POST", "/v1/jobs", body: Data(body.utf8), headers: ["Idempotency-Key": "t1"])
    #expect(first.status == 202, "\(String(decoding: first.body, as: UTF8.self))")
    let again = try daemon.request("POST", "/v1/jobs", body: Data(body.utf8), headers: ["Idempotency-Key": "t1"])
    #expect(again.status == 200, "the same bytes again: \(String(decoding: again.body, as: UTF8.self))")
    #expect(again.json["id"] as? String == first.json["id"] as? String)
    // The same order re-serialized by another program (other member order and spacing).
    let object = try JSONSerialization.jsonObject(with: Data(order.utf8))
    let rewritten = String(
      decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted]),
      as: UTF8.self)
    let third = try daemon.request(
      "POST", "/v1/jobs",
      body: Data(#"{"data": \#(rewritten), "locale": "de_DE", "copies": 2, "template": "receipt"}"#.utf8),
      headers: ["Idempotency-Key": "t1"])
    #expect(third.status == 200, "\(String(decoding: third.body, as: UTF8.self))")
    for (changed, field) in [
      (body.replacingOccurrences(of: #""copies": 2"#, with: #""copies": 3"#), "copies"),
      (body.replacingOccurrences(of: #""locale": "de_DE""#, with: #""locale": "fr_FR""#), "locale"),
    ] {
      let conflict = try daemon.request(
        "POST", "/v1/jobs", body: Data(changed.utf8), headers: ["Idempotency-Key": "t1"])
      #expect(conflict.status == 409 && (conflict.json["detail"] as? String)?.contains(field) == true)
    }
  }

  /// Durable before 202, seen by strace on the shipped daemon: for each request, between the
  /// read that brought it (its Idempotency-Key in the bytes) and the write of its `202`, the WAL
  /// file was fsynced (a completed `fsync`/`fdatasync` of `queue.sqlite-wal`).
  @Test func every202IsFsyncedFirst() throws {
    let trace = try Tool.temporaryDirectory().appendingPathComponent("syncs.txt")
    let (daemon, work) = try daemon(wrapper: [
      "/usr/bin/strace", "-f", "-y", "-s", "4096", "-e",
      "trace=fsync,fdatasync,read,readv,recvfrom,recvmsg,write,writev,sendmsg,sendto",
      "-o", trace.path,
    ])
    defer { _ = try? Tool.run("pkill", ["-9", "-f", work.path]) }
    for n in 0..<5 {
      let response = try daemon.request(
        "POST", "/v1/jobs", body: Data(#"{"template": "receipt", "data": \#(order)}"#.utf8),
        headers: ["Idempotency-Key": "sync-key-\(n)"])
      #expect(response.status == 202)
    }
    #expect(
      waitUntil(seconds: 10) {
        ((try? String(contentsOf: trace, encoding: .utf8)) ?? "").components(separatedBy: "HTTP/1.1 202").count > 5
      }, "strace wrote the five answers")
    let lines = try String(contentsOf: trace, encoding: .utf8).split(separator: "\n")
    for n in 0..<5 {
      let request = try #require(lines.firstIndex { $0.contains("sync-key-\(n)") && !$0.contains("HTTP/1.1 2") })
      let answer = try #require(
        lines[request...].firstIndex { $0.contains("HTTP/1.1 202") }, "the 202 of request \(n) after its read")
      // strace -f prints a call another thread interrupts as "PID fsync(FD</path> <unfinished ...>"
      // and later "PID <... fsync resumed>) = 0".
      var pending: Set<Substring> = []
      var synced = false
      for line in lines[request..<answer] {
        let pid = line.prefix { $0 != " " }
        let isSync = line.contains(" fsync(") || line.contains(" fdatasync(")
        if isSync, line.contains("queue.sqlite-wal>") {
          if line.hasSuffix("= 0") { synced = true } else if line.hasSuffix("<unfinished ...>") { pending.insert(pid) }
        } else if line.contains("sync resumed>"), line.hasSuffix("= 0"), pending.contains(pid) {
          synced = true
        }
      }
      #expect(
        synced,
        "the WAL was fsynced between request \(n) and its 202: \(lines[request...answer].joined(separator: "\n").prefix(2000))"
      )
    }
  }

  /// SIGINT stops the daemon as SIGTERM does: exit 0, its port closed, no error logged, and the
  /// next start finds nothing to reconcile (the stop was recorded as clean).
  @Test func sigintStopsTheDaemonCleanly() throws {
    let (daemon, work) = try daemon()
    let job = try daemon.request("POST", "/v1/jobs", body: Data(#"{"template": "receipt", "data": \#(order)}"#.utf8))
    let id = try #require(job.json["id"] as? String)
    #expect(
      waitUntil(seconds: 30) { (try? daemon.request("GET", "/v1/jobs/\(id)").json["state"] as? String) == "completed" })
    let port = daemon.port
    #expect(daemon.interrupt() == 0, "exit 0 on SIGINT")
    #expect((try? RawConnection(port: Int(port))) == nil, "the port is closed")
    let log = try String(contentsOf: work.appendingPathComponent("serve.log"), encoding: .utf8)
    #expect(!log.contains(" error "), "\(log)")
    try daemon.start()
    defer { _ = daemon.terminate() }
    let after = try String(contentsOf: work.appendingPathComponent("serve.log"), encoding: .utf8)
    #expect(!after.contains("crash"), "a clean stop is no crash: \(after)")
  }

  @Test func oneDaemonPerQueueFile() throws {
    let (daemon, work) = try daemon()
    defer { _ = daemon.terminate() }
    let second = try Tool.run(
      try Tool.shippedBinary(),
      [
        "serve", "--port", "0", "--db", work.appendingPathComponent("queue.sqlite").path, "--printer",
        "a=dir:\(work.path)", "--templates", templates,
      ])
    #expect(second.status == 69)
    #expect(
      second.stderr
        == "receipt: error: another receipt serve (pid \(daemon.pid ?? 0)) is using \(work.appendingPathComponent("queue.sqlite").path); stop it, or give this one its own --db file\n"
    )
  }

  @Test func aCraftedLogoIsA422OrAFailedJobAndTheDaemonLives() throws {
    // A real JPEG whose frame header claims 60000×60000 pixels, behind fill bytes.
    let dir = try Tool.temporaryDirectory()
    let pgm = dir.appendingPathComponent("g.pgm")
    try Data(Array("P5\n16 16\n255\n".utf8) + [UInt8](repeating: 128, count: 256)).write(to: pgm)
    var jpeg = [UInt8](try Tool.run("pnmtojpeg", [pgm.path]).output)
    let sof = try #require(jpeg.indices.first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 })
    jpeg.replaceSubrange((sof + 5)..<(sof + 9), with: [0xEA, 0x60, 0xEA, 0x60])
    jpeg.insert(contentsOf: [0xFF, 0xFF, 0xFF], at: sof)
    let templates = dir.appendingPathComponent("templates")
    try FileManager.default.createDirectory(at: templates, withIntermediateDirectories: true)
    try #"<receipt><image src="$logo"/><text>after the logo</text></receipt>"#.write(
      to: templates.appendingPathComponent("logo.xml"), atomically: true, encoding: .utf8)
    let uri = "data:image/jpeg;base64," + Data(jpeg).base64EncodedString()
    let order = Data(#"{"logo": "\#(uri)"}"#.utf8)
    // The CLI of the shipped binary: exit 65 with the reason.
    let cli = try Tool.run(
      try Tool.shippedBinary(),
      [
        "render", "-", "--templates", templates.path, "--template", "logo", "-o",
        dir.appendingPathComponent("x.pdf").path,
      ],
      stdin: order)
    #expect(cli.status == 65 && cli.stderr.contains("too large"), "\(cli.stderr)")
    // The daemon: a preview is 422, a job fails at once with the reason, and the process lives.
    let (daemon, _) = try daemon(["--templates", templates.path])
    defer { _ = daemon.terminate() }
    let body = Data(#"{"template": "logo", "data": {"logo": "\#(uri)"}}"#.utf8)
    let render = try daemon.request("POST", "/v1/render?format=png", body: body)
    #expect(render.status == 422, "\(String(decoding: render.body, as: UTF8.self))")
    let job = try daemon.request("POST", "/v1/jobs", body: body)
    let id = try #require(job.json["id"] as? String)
    #expect(
      waitUntil(seconds: 30, poll: 0.05) {
        (try? daemon.request("GET", "/v1/jobs/\(id)").json["state"] as? String) == "failed"
      })
    let failed = try daemon.request("GET", "/v1/jobs/\(id)").json
    #expect((failed["error"] as? String)?.contains("too large") == true && failed["attempts"] as? Int == 1, "\(failed)")
    #expect(try daemon.request("GET", "/healthz").status == 200, "alive")
  }

  /// A daemon started from a configuration file with these settings on top of a directory
  /// printer.
  func configured(_ settings: String) throws -> Daemon {
    let work = try Tool.temporaryDirectory()
    let archive = work.appendingPathComponent("archive")
    try FileManager.default.createDirectory(at: archive, withIntermediateDirectories: true)
    let config = work.appendingPathComponent("serve.json")
    try """
    {"database": "\(work.appendingPathComponent("queue.sqlite").path)", "templates": "\(templates)",
     "printers": {"archive": "dir:\(archive.path)"}, \(settings)}
    """.write(to: config, atomically: true, encoding: .utf8)
    let daemon = try Daemon(arguments: ["--config", config.path], log: work.appendingPathComponent("serve.log"))
    try daemon.start()
    return daemon
  }

  @Test func dnsRebindingIsRefusedByTheHostCheck() throws {
    let daemon = try configured(#""hostNames": ["pos-server.local"]"#)
    defer { _ = daemon.terminate() }
    let port = Int(daemon.port)
    let body = #"{"template": "receipt", "data": \#(order)}"#
    func post(host: String, origin: String? = nil) throws -> String {
      try RawConnection.request(
        port: port,
        "POST /v1/jobs HTTP/1.1\r\nHost: \(host)\r\n" + (origin.map { "Origin: \($0)\r\n" } ?? "")
          + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
    }
    // The attacker's name resolves to 127.0.0.1; its page is "same origin" with itself.
    let rebound = try post(host: "attacker.example:\(port)", origin: "http://attacker.example:\(port)")
    #expect(rebound.hasPrefix("HTTP/1.1 421"), "\(rebound.prefix(200))")
    #expect(try post(host: "attacker.example:\(port)").hasPrefix("HTTP/1.1 421"), "without an Origin too")
    for host in ["127.0.0.1:\(port)", "localhost:\(port)", "pos-server.local:\(port)"] {
      #expect(try post(host: host).hasPrefix("HTTP/1.1 202"), "\(host)")
    }
    let jobs = try daemon.request("GET", "/v1/jobs").json["jobs"] as? [Any]
    #expect(jobs?.count == 3)
  }

  @Test func slowAndIdleConnectionsCannotHoldTheAPI() throws {
    // A request head trickled in never completes: the connection is closed at headerTimeout.
    let strict = try configured(#""headerTimeout": 1"#)
    defer { _ = strict.terminate() }
    let slow = try RawConnection(port: Int(strict.port))
    try slow.send("GET /healthz HTTP/1.1\r\nHo")
    #expect(slow.readUntilClosed(timeout: 10).closed, "a request head that does not arrive in time closes it")
    // Many more idle connections than the cap, holding no request: the API still answers, at
    // once (the idle ones are closed to make room, not waited for). Both timeouts are long here,
    // so what closes them is the cap.
    let daemon = try configured(#""maxConnections": 16, "headerTimeout": 30, "idleTimeout": 30"#)
    defer { _ = daemon.terminate() }
    let port = Int(daemon.port)
    let idle = try (0..<200).map { _ in try RawConnection(port: port) }
    // The daemon accepts them and closes all but its cap (waited for: it has had them all), long
    // before either timeout.
    #expect(
      waitUntil(seconds: 10) { idle.filter(\.isClosedByPeer).count >= idle.count - 16 },
      "idle connections beyond the cap are closed: \(idle.filter(\.isClosedByPeer).count) of \(idle.count)")
    let answer = try RawConnection.request(
      port: port, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", timeout: 5)
    #expect(answer.hasPrefix("HTTP/1.1 200"), "answered while \(idle.count) idle connections were open")
    let files = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(daemon.pid ?? 0)/fd").count
    #expect(files < 16 + 40, "idle connections beyond the cap were closed: \(files) open files")
  }

  @Test func foreignPagesAndNonJSONBodiesCannotPrint() throws {
    let (daemon, work) = try daemon()
    defer { _ = daemon.terminate() }
    let body = Data(#"{"template": "receipt", "data": \#(order)}"#.utf8)
    let simple = try daemon.request(
      "POST", "/v1/jobs", body: body, headers: ["Content-Type": "text/plain", "Origin": "https://evil.example"])
    #expect(simple.status == 403)
    let plain = try daemon.request("POST", "/v1/jobs", body: body, headers: ["Content-Type": "text/plain"])
    #expect(plain.status == 415)
    #expect((try daemon.request("GET", "/v1/jobs").json["jobs"] as? [Any])?.isEmpty == true)
    _ = work
  }
}
