import Foundation
import ReceiptTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Hostile input, round 4: the IPP listener, the one door meant to face the whole shop network,
/// tried as an attacker against the shipped binaries. Each request here once killed, stalled or
/// flooded the daemon; now each gets an IPP error or a failed job of its own while `/healthz`
/// answers, the daemon's process is the same one, and its memory stays bounded.
@Suite(.serialized, .timeLimit(.minutes(10))) struct HostileIPPTests {
  /// A daemon with a directory printer `box`, IPP on a free port, and `environment`.
  func daemon(settings: String = "", environment: [String: String] = [:]) throws -> (Daemon, URL) {
    let work = try Tool.temporaryDirectory()
    let printed = work.appendingPathComponent("printed")
    try FileManager.default.createDirectory(at: printed, withIntermediateDirectories: true)
    let config = work.appendingPathComponent("serve.json")
    try """
    {"database": "\(work.appendingPathComponent("queue.sqlite").path)",
     "templates": "\(Tool.packageRoot.appendingPathComponent("Templates").path)",
     "printers": {"box": "dir:\(printed.path)"}, "ippPort": 0\(settings)}
    """.write(to: config, atomically: true, encoding: .utf8)
    let daemon = try Daemon(
      arguments: ["--config", config.path], environment: environment, log: work.appendingPathComponent("serve.log"))
    try daemon.start()
    #expect(waitUntil(seconds: 10) { daemon.ippPort != nil }, "the daemon names its IPP port")
    return (daemon, work)
  }

  func uri(_ daemon: Daemon) -> String { "ipp://127.0.0.1:\(daemon.ippPort ?? 0)/ipp/print/box" }

  /// `/healthz` answers within a second, from the same process as before.
  func alive(_ daemon: Daemon, pid: Int32?) -> Bool {
    (try? daemon.request("GET", "/healthz", timeout: 5).status) == 200 && daemon.pid == pid && pid != nil
  }

  /// The IPP status of a raw answer (bytes 2–3).
  func status(_ answer: (status: Int, body: Data)) -> Int {
    answer.body.count >= 4 ? Int(answer.body[2]) << 8 | Int(answer.body[3]) : -1
  }

  /// A raw request with `requesting-user-name` and more operation attributes, then `job`
  /// (job attributes), then the document.
  func request(
    _ daemon: Daemon, _ operation: UInt16, operation more: Data = Data(), job: Data = Data(), document: Data = Data(),
    user: String = "ana"
  ) throws -> (status: Int, body: Data) {
    let attributes =
      IPPClient.attribute(0x42, "requesting-user-name", Data(user.utf8)) + more
      + (job.isEmpty ? Data() : Data([0x02]) + job)
    let body = IPPClient.rawRequest(operation: operation, uri: uri(daemon), more: attributes, document: document)
    return try IPPClient.post(port: daemon.ippPort ?? 0, path: "/ipp/print/box", body: body)
  }

  /// The `job-id` in a raw answer (RFC 8010: tag 0x21, name, length 4, value).
  func jobID(_ answer: (status: Int, body: Data)) -> Int? {
    let marker = Data([0x21, 0x00, 0x06]) + Data("job-id".utf8) + Data([0x00, 0x04])
    guard let range = answer.body.range(of: marker), answer.body.count >= range.upperBound + 4 else { return nil }
    return answer.body[range.upperBound..<range.upperBound + 4].reduce(0) { $0 << 8 | Int($1) }
  }

  /// A job's state and reasons, as ipptool (libcups) reads them.
  func state(_ daemon: Daemon, _ id: Int, user: String = "ana") -> [String] {
    let run = try? IPPClient.request(
      uri(daemon), operation: "Get-Job-Attributes", ["ATTR integer job-id \(id)"], user: user)
    return (run?.values("job-state") ?? []) + (run?.values("job-state-reasons") ?? [])
      + (run?.values("job-state-message") ?? [])
  }

  /// Numbers a client writes become integers only after a range check: `media` lengths of
  /// 10^300, NaN and infinity trapped the daemon; a job-uri ending in 2^63−1 overflowed
  /// `sequence + 1`; `media-col` nested 10,000 deep overflowed its stack.
  @Test func numbersAndNestingFromRequestsCannotKillTheDaemon() throws {
    let (daemon, _) = try daemon()
    defer { _ = daemon.terminate() }
    let pid = daemon.pid
    for media in ["custom_x_80x1e300mm", "custom_x_80xnanmm", "custom_x_80xinfmm", "custom_x_1e300x80mm"] {
      let value = IPPClient.attribute(0x44, "media", Data(media.utf8))
      let validate = try request(daemon, 0x04, job: value)
      #expect(validate.status == 200 && status(validate) == 0x0001, "\(media): ignored, not trapped")
      let strict = try request(
        daemon, 0x04, operation: IPPClient.attribute(0x22, "ipp-attribute-fidelity", Data([1])), job: value)
      #expect(status(strict) == 0x040B, "\(media) with fidelity: attributes-or-values-not-supported")
      #expect(alive(daemon, pid: pid), "\(media)")
    }
    for operation: UInt16 in [0x09, 0x08, 0x3B, 0x06] {
      let huge = IPPClient.attribute(0x45, "job-uri", Data((uri(daemon) + "/9223372036854775807").utf8))
      #expect(status(try request(daemon, operation, operation: huge)) == 0x0400, "operation \(operation)")
      #expect(alive(daemon, pid: pid))
    }
    let largest = IPPClient.attribute(0x21, "job-id", Data([0x7F, 0xFF, 0xFF, 0xFF]))
    #expect(status(try request(daemon, 0x09, operation: largest)) == 0x0406, "no such job")
    var nested = IPPClient.attribute(0x34, "media-col", Data())
    for _ in 0..<20_000 {
      nested += IPPClient.attribute(0x4A, "", Data("m".utf8)) + IPPClient.attribute(0x34, "", Data())
    }
    #expect(nested.count > 200_000)
    let deep = try request(daemon, 0x04, job: nested)
    #expect(deep.status == 200 && status(deep) == 0x0400, "20,000 levels: a bad request")
    #expect(alive(daemon, pid: pid))
  }

  /// A document that would crash its reader, exceed its memory or take too long fails alone, with
  /// why — never the daemon, never a crash loop: it is read in a process of its own with a budget.
  /// The next job prints.
  @Test func aHostileDocumentFailsAloneAndSaysWhy() throws {
    let (daemon, work) = try daemon(environment: ["RECEIPT_DOCUMENT_SECONDS": "3", "RECEIPT_DOCUMENT_MIB": "200"])
    defer { _ = daemon.terminate() }
    let pid = daemon.pid
    let page = try IPPClient.rasterPage("pwg", type: "sgray_8", dpi: 203, width: 80, length: 20)
    let square = work.appendingPathComponent("square.pwg")
    #expect(
      try Tool.run("python3", [IPPClient.rasterWriter, "pwg", "sgray_8", "300", "1380", "1380", square.path]).status
        == 0)
    let cases: [(String, Data, String)] = [
      ("a MediaBox of 10^300 pt", HostileDocuments.hugeMediaBox, "is too large to print"),
      (
        "a 16-bit CMYK page of 16,384² pixels",
        try HostileDocuments.pwgHeader(
          from: page, width: 16_384, height: 16_384, bitsPerColor: 16, colors: 4, colorSpace: 6),
        "a page may be at most 1024 MiB"
      ),
      // Ended by its CPU limit (poppler's own) or by the wall clock, whichever comes first.
      ("30 pages of nested forms", HostileDocuments.nestedForms(pages: 30, depth: 20), "limit"),
      ("a page over the reader's memory", try Data(contentsOf: square), "the document's reader ended with"),
    ]
    for (what, document, reason) in cases {
      let started = Date()
      let id = try #require(jobID(try request(daemon, 0x02, document: document)), "\(what) is accepted")
      #expect(waitUntil(seconds: 30) { state(daemon, id).first == "aborted" }, "\(what): \(state(daemon, id))")
      #expect(Date().timeIntervalSince(started) < 20, "\(what) is given up within its budget")
      let described = state(daemon, id)
      #expect(described.contains { $0.contains("document-format-error") }, "\(what): \(described)")
      #expect(described.contains { $0.contains(reason) }, "\(what): \(described)")
      #expect(alive(daemon, pid: pid), "\(what)")
    }
    let good = try #require(jobID(try request(daemon, 0x02, document: try Data(contentsOf: page))))
    #expect(waitUntil(seconds: 30) { state(daemon, good).first == "completed" }, "\(state(daemon, good))")
    let peak = try #require(daemon.peakMemory)
    #expect(peak < 700 << 20, "peak RSS \(peak >> 20) MiB")
    // The one-shot command reads documents the same way: exit 65 with the reason, not 132.
    let file = work.appendingPathComponent("huge.pdf")
    try HostileDocuments.hugeMediaBox.write(to: file)
    let result = try Tool.run(try Tool.shippedBinary(), ["print", file.path, "--printer", "dir:\(work.path)"])
    #expect(result.status == 65 && result.stderr.contains("is too large to print"), "\(result.stderr)")
  }

  /// A daemon stopped while it reads a document stops within its grace period, cleanly: the stop
  /// is no crash of the job (three stops once killed it).
  @Test func aStopWhileADocumentIsReadIsCleanAndNoCrash() throws {
    let (daemon, work) = try daemon(settings: #", "shutdownGrace": 2"#)
    defer { _ = daemon.terminate() }
    let id = try #require(jobID(try request(daemon, 0x02, document: HostileDocuments.nestedForms(pages: 3, depth: 20))))
    #expect(waitUntil(seconds: 10) { state(daemon, id).first == "processing" }, "\(state(daemon, id))")
    for round in 1...3 {
      let started = Date()
      #expect(daemon.terminate(seconds: 20) == 0, "stop \(round): exit 0")
      #expect(Date().timeIntervalSince(started) < 8, "stop \(round) within the grace (2 s) and a little")
      let stored = try Tool.run(
        "python3",
        [
          "-c",
          "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('select state, crashes from job').fetchone())",
          work.appendingPathComponent("queue.sqlite").path,
        ])
      #expect(stored.stdout.contains("0)") && !stored.stdout.contains("dead"), "stop \(round): \(stored.stdout)")
      try daemon.start()
      #expect(waitUntil(seconds: 10) { state(daemon, id).first == "processing" }, "\(state(daemon, id))")
    }
  }

  /// DNS rebinding: a page in the shop's browser whose name points at the printer's address could
  /// print to it; the IPP listener takes only its own names in `Host`, as the API does.
  @Test func theIPPListenerTakesOnlyItsOwnNames() throws {
    let (daemon, _) = try daemon()
    defer { _ = daemon.terminate() }
    let port = try #require(daemon.ippPort)
    let body = IPPClient.rawRequest(operation: 0x0B, uri: uri(daemon))
    for host in ["evil.example", "evil.example:\(port)", "127.0.0.1.nip.io:\(port)"] {
      let answer = try Tool.run(
        "curl",
        [
          "-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Host: \(host)", "-H", "Content-Type: application/ipp",
          "--data-binary", "@-", "http://127.0.0.1:\(port)/ipp/print/box",
        ], stdin: body)
      #expect(answer.stdout == "421", "\(host): \(answer.stdout)")
      let page = try Tool.run(
        "curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Host: \(host)", "http://127.0.0.1:\(port)/"])
      #expect(page.stdout == "421", "the status page for \(host)")
    }
    for host in ["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)"] {
      let answer = try Tool.run(
        "curl",
        [
          "-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Host: \(host)", "-H", "Content-Type: application/ipp",
          "--data-binary", "@-", "http://127.0.0.1:\(port)/ipp/print/box",
        ], stdin: body)
      #expect(answer.stdout == "200", "\(host): \(answer.stdout)")
    }
  }

  /// `requesting-user-name` is what a client says (IPP has no login here): it keeps one phone from
  /// closing, filling or canceling another's job and from reading its name — on every job
  /// operation, as CUPS does. Bob once closed Ana's job and sent his document into it.
  @Test func everyJobOperationIsItsSendersOnly() throws {
    let (daemon, work) = try daemon()
    defer { _ = daemon.terminate() }
    let printer = uri(daemon)
    let created = try IPPClient.request(
      printer, operation: "Create-Job", ["ATTR name job-name anas-receipt"], user: "ana")
    let id = try #require(created.values("job-id").first.flatMap(Int.init))
    let page = try IPPClient.rasterPage("pwg", type: "sgray_8", dpi: 203, width: 80, length: 20)
    func send(as user: String, status: String) throws -> Bool {
      try IPPClient.request(
        printer, operation: "Send-Document",
        [
          "ATTR integer job-id \(id)", "ATTR boolean last-document true",
          "ATTR mimeMediaType document-format image/pwg-raster", "FILE \(page.path)",
        ], status: status, user: user
      ).failures.isEmpty
    }
    #expect(try send(as: "bob", status: "client-error-not-authorized"), "bob's document into ana's job")
    #expect(
      try IPPClient.request(
        printer, operation: "Close-Job", ["ATTR integer job-id \(id)"], status: "client-error-not-authorized",
        user: "bob"
      ).failures.isEmpty, "bob closes ana's job")
    #expect(state(daemon, id).first == "pending-held", "still waiting for ana's document: \(state(daemon, id))")
    let seen = try IPPClient.request(
      printer, operation: "Get-Job-Attributes", ["ATTR integer job-id \(id)"], user: "bob")
    #expect(seen.values("job-name").isEmpty && seen.values("job-originating-user-name").isEmpty, "\(seen.output)")
    let own = try IPPClient.request(
      printer, operation: "Get-Job-Attributes", ["ATTR integer job-id \(id)"], user: "ana")
    #expect(own.values("job-name") == ["anas-receipt"])
    #expect(try send(as: "ana", status: "successful-ok"))
    #expect(waitUntil(seconds: 30) { state(daemon, id).first == "completed" }, "\(state(daemon, id))")
    _ = work
  }

  /// Memory is bounded whatever the requests: a document arrives to disk, not to memory (30
  /// clients each holding back the last byte of 32 MiB once held 1.1 GB); lists never load
  /// documents (each Get-Jobs over 20 failed 30 MiB jobs once cost 760 MB).
  @Test func memoryStaysBoundedWhateverTheRequests() throws {
    var limit = rlimit()
    getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    limit.rlim_cur = limit.rlim_max
    setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    let (daemon, _) = try daemon(environment: ["RECEIPT_DOCUMENT_SECONDS": "5"])
    defer { _ = daemon.terminate() }
    let port = try #require(daemon.ippPort)
    #expect(waitUntil(seconds: 10) { daemon.peakMemory != nil })
    let before = try #require(daemon.peakMemory)
    let head = IPPClient.rawRequest(operation: 0x02, uri: uri(daemon))
    let size = 32 << 20
    var sockets: [Int32] = []
    defer { sockets.forEach { close($0) } }
    let chunk = Data("%PDF-1.4\n".utf8) + Data(repeating: 0x78, count: 1 << 20)
    for _ in 0..<30 {
      let fd = try Loopback.connect(port: port)
      sockets.append(fd)
      let headers =
        "POST /ipp/print/box HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: application/ipp\r\n"
        + "Content-Length: \(head.count + size)\r\n\r\n"
      #expect(Loopback.send(fd, Data(headers.utf8) + head))
      var sent = 0
      while sent < size - 1 {
        let part = chunk.prefix(size - 1 - sent)
        guard Loopback.send(fd, part) else { break }
        sent += part.count
      }
      #expect(sent == size - 1)
    }
    let held = try #require(daemon.peakMemory)
    #expect(held - before < 150 << 20, "30 bodies held back one byte: +\((held - before) >> 20) MiB")
    sockets.forEach { close($0) }
    sockets = []
    // Failed document jobs of 8 MiB each, then Get-Jobs four at a time.
    let garbage =
      Data("%PDF-1.4\n".utf8) + Data((0..<(8 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) })
    var ids: [Int] = []
    for _ in 0..<10 { ids += [jobID(try request(daemon, 0x02, document: garbage))].compactMap { $0 } }
    #expect(ids.count == 10)
    #expect(waitUntil(seconds: 120) { ids.allSatisfy { state(daemon, $0).first == "aborted" } })
    daemon.resetPeakMemory()
    let listed = try #require(daemon.peakMemory)
    let all =
      IPPClient.attribute(0x44, "which-jobs", Data("all".utf8))
      + IPPClient.attribute(0x44, "requested-attributes", Data("all".utf8))
    let group = DispatchGroup()
    for _ in 0..<4 {
      DispatchQueue.global().async(group: group) { _ = try? request(daemon, 0x0A, operation: all) }
    }
    group.wait()
    let after = try #require(daemon.peakMemory)
    #expect(after - listed < 40 << 20, "four Get-Jobs over 80 MiB of documents: +\((after - listed) >> 20) MiB")
  }

  /// Connections cannot lock the printers out: 520 clients in the middle of a body (one wave
  /// once locked the IPP front out for 36 s) are closed to make room for one that sends, and a
  /// printer's jobs waiting for their documents are capped (Create-Job at 12/s grew without bound).
  @Test func stalledBodiesAndHeldJobsCannotLockThePrintersOut() throws {
    var limit = rlimit()
    getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    limit.rlim_cur = limit.rlim_max
    setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    let (daemon, _) = try daemon()
    defer { _ = daemon.terminate() }
    let port = try #require(daemon.ippPort)
    let body = IPPClient.rawRequest(operation: 0x02, uri: uri(daemon), document: Data("%PDF-1.4\n".utf8))
    var sockets: [Int32] = []
    defer { sockets.forEach { close($0) } }
    for _ in 0..<520 {
      let fd = try Loopback.connect(port: port)
      sockets.append(fd)
      let headers =
        "POST /ipp/print/box HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: application/ipp\r\n"
        + "Content-Length: \(1 << 20)\r\n\r\n"
      _ = Loopback.send(fd, Data(headers.utf8) + body)
    }
    Thread.sleep(forTimeInterval: 1.5)
    let started = Date()
    let answer = try request(daemon, 0x0B)
    #expect(answer.status == 200 && status(answer) == 0, "answered beside 520 stalled bodies")
    #expect(Date().timeIntervalSince(started) < 3, "in \(Date().timeIntervalSince(started)) s")
    sockets.forEach { close($0) }
    sockets = []
    var statuses: [Int] = []
    for _ in 0..<66 { statuses.append(status(try request(daemon, 0x05))) }
    #expect(statuses.prefix(64).allSatisfy { $0 == 0 }, "\(statuses)")
    #expect(statuses.suffix(2) == [0x0507, 0x0507], "server-error-busy past 64 held jobs: \(statuses.suffix(2))")
  }

  /// Smaller ones: a newline in `requesting-user-name` forged log lines; an HTTP/1.0 request
  /// without keep-alive stayed open; an absolute-form target was answered by its `Host` header.
  @Test func headersAndNamesCannotMislead() throws {
    let (daemon, work) = try daemon()
    defer { _ = daemon.terminate() }
    let forged = "ana\n2026-11-28T10:00:00+0000 error receipt.server: [ReceiptServer] forged"
    _ = try request(daemon, 0x3C, user: forged)  // Identify-Printer logs who asked
    #expect(
      waitUntil(seconds: 5) {
        ((try? String(contentsOf: work.appendingPathComponent("serve.log"), encoding: .utf8)) ?? "").contains(
          "identify")
      })
    let log = try String(contentsOf: work.appendingPathComponent("serve.log"), encoding: .utf8)
    #expect(!log.split(separator: "\n").contains { $0.hasPrefix("2026-11-28T10:00:00") }, "no forged line")
    for (port, path) in [(daemon.port, "/healthz"), (try #require(daemon.ippPort), "/")] {
      let connection = try RawConnection(port: Int(port))
      try connection.send("GET \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
      let (answer, closed) = connection.readUntilClosed(timeout: 3)
      #expect(String(decoding: answer.prefix(12), as: UTF8.self) == "HTTP/1.1 200", "port \(port)")
      #expect(closed, "HTTP/1.0 without keep-alive: closed after the answer (port \(port))")
    }
    let targets = [("http://evil.example/healthz", "421"), ("http://127.0.0.1:\(daemon.port)/healthz", "200")]
    for (target, expected) in targets {
      let answer = try RawConnection.request(
        port: Int(daemon.port), "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", timeout: 3)
      #expect(answer.hasPrefix("HTTP/1.1 \(expected)"), "\(target): \(answer.prefix(40))")
    }
  }
}
