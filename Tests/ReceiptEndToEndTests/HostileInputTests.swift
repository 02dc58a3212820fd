import Foundation
import ReceiptTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Hostile input, round 3, on the shipped binaries: what once killed the daemon, stalled a queue
/// or read files it should not, each now a clear error while the daemon keeps answering.
@Suite(.serialized) struct HostileInputTests {
  var receipt: String { (try? Tool.shippedBinary()) ?? "receipt-release-binary-missing" }
  var templates: String { Tool.packageRoot.appendingPathComponent("Templates").path }
  static let token = "hostile-input-token-2026"

  /// The bodies that overflowed the stack: 30,000 levels of every recursion the expression
  /// grammar has, and 30,000 operators in a row.
  static let deepExpressions = [
    "${" + String(repeating: "(", count: 30_000) + "1}",
    "${" + String(repeating: "!", count: 30_000) + "paid}",
    "${" + String(repeating: "- ", count: 30_000) + "1}",
    "${items | where:'" + String(repeating: "(", count: 30_000) + "rate' | count}",
    "${1" + String(repeating: " + 1", count: 30_000) + "}",
  ]

  /// A daemon on a copy of the templates with a directory printer and a token, started.
  func daemon(settings: String = "") throws -> (Daemon, URL) {
    let work = try Tool.temporaryDirectory()
    let copy = work.appendingPathComponent("templates")
    try FileManager.default.copyItem(atPath: templates, toPath: copy.path)
    let archive = work.appendingPathComponent("archive")
    try FileManager.default.createDirectory(at: archive, withIntermediateDirectories: true)
    let config = work.appendingPathComponent("serve.json")
    try """
    {"database": "\(work.appendingPathComponent("queue.sqlite").path)", "templates": "\(copy.path)",
     "printers": {"archive": "dir:\(archive.path)"}, "tokens": ["\(Self.token)"]\(settings.isEmpty ? "" : ", " + settings)}
    """.write(to: config, atomically: true, encoding: .utf8)
    let daemon = try Daemon(arguments: ["--config", config.path], log: work.appendingPathComponent("serve.log"))
    try daemon.start()
    return (daemon, work)
  }

  /// A preview of a template's text (`source`) with an order.
  func preview(_ daemon: Daemon, _ source: String, data: String = "{}", format: String = "pdf") throws
    -> Daemon
    .Response
  {
    let body = try JSONSerialization.data(withJSONObject: ["source": source, "template": "t"])
    let withData = String(decoding: body, as: UTF8.self).dropLast() + #", "data": \#(data)}"#
    return try daemon.request(
      "POST", "/v1/render?format=\(format)", body: Data(withData.utf8),
      headers: ["Authorization": "Bearer \(Self.token)"], timeout: 60)
  }

  /// `/healthz` answers (within 5 s: a daemon locked out never does, and a machine running the
  /// test processes side by side may take more than one).
  func alive(_ daemon: Daemon) -> Bool {
    (try? daemon.request("GET", "/healthz", timeout: 5).status) == 200
  }

  @Test func deepNestingIsExit65AndTheDaemonLives() throws {
    let dir = try Tool.temporaryDirectory()
    for (n, expression) in Self.deepExpressions.enumerated() {
      let template = dir.appendingPathComponent("deep\(n).xml")
      try "<receipt><text>\(expression)</text></receipt>".write(to: template, atomically: true, encoding: .utf8)
      let result = try Tool.run(receipt, ["validate", template.path])
      #expect(result.status == 65, "\(n): \(result.status) \(result.stderr.prefix(300))")
      #expect(result.stderr.split(separator: "\n").count == 1)
      #expect(result.stderr.contains("deep\(n).xml:1:"), "\(result.stderr.prefix(300))")
      #expect(
        result.stderr.contains("nests deeper than 32 levels") || result.stderr.contains("more than 256 operators"),
        "\(result.stderr.prefix(300))")
    }
    let (daemon, _) = try daemon()
    defer { _ = daemon.terminate() }
    for expression in Self.deepExpressions {
      let answer = try preview(daemon, "<receipt><text>\(expression)</text></receipt>", data: #"{"items": []}"#)
      #expect(answer.status == 422, "\(String(decoding: answer.body.prefix(300), as: UTF8.self))")
      #expect(alive(daemon), "the daemon answers after the preview")
      let saved = try daemon.request(
        "PUT", "/v1/templates/deep", body: Data("<receipt><text>\(expression)</text></receipt>".utf8),
        headers: ["Authorization": "Bearer \(Self.token)", "Content-Type": "application/xml"], timeout: 60)
      #expect(saved.status == 422, "\(String(decoding: saved.body.prefix(300), as: UTF8.self))")
      #expect(alive(daemon))
    }
  }

  /// `replace` chains that grew text tenfold per step (715 MB in the CLI, a trapped daemon) and a
  /// PNG preview that drew every page of 10,000 (66 MB each at 1,200 dpi on 350 mm paper) but
  /// returned one: each a clear error or an answer, in bounded memory.
  @Test func outputIsBoundedAndMemoryWithIt() throws {
    let chain = (0..<9).map { _ in " | replace:'a':'aaaaaaaaaa'" }.joined()
    let dir = try Tool.temporaryDirectory()
    try "<receipt><text>${word\(chain)}</text></receipt>".write(
      to: dir.appendingPathComponent("t.xml"), atomically: true, encoding: .utf8)
    let order = dir.appendingPathComponent("o.json")
    try #"{"word": "aaaaaaaaaa"}"#.write(to: order, atomically: true, encoding: .utf8)
    let (result, cost) = try Tool.runMeasured(
      receipt,
      [
        "render", order.path, "--templates", dir.path, "--template", "t", "-o",
        dir.appendingPathComponent("x.pdf").path,
      ])
    #expect(result.status == 65, "\(result.stderr)")
    #expect(result.stderr.contains("a bound value is limited to 1048576 bytes"), "\(result.stderr)")
    #expect(cost.peakBytes < 200 << 20, "peak RSS \(cost.peakBytes >> 20) MiB")

    let (daemon, _) = try daemon()
    defer { _ = daemon.terminate() }
    let grown = try preview(daemon, "<receipt><text>${word\(chain)}</text></receipt>", data: #"{"word": "aaaaaaaaaa"}"#)
    #expect(grown.status == 422, "\(String(decoding: grown.body, as: UTF8.self))")
    #expect(alive(daemon))
    // A cut after each of 10,000 items at 1,200 dpi on 350 mm paper: only the first page is drawn.
    let items = "[" + (0..<10_000).map { #"{"n": \#($0)}"# }.joined(separator: ",") + "]"
    let pages = try preview(
      daemon,
      #"<receipt paper="350mm" dpi="1200"><repeat items="$items" as="i"><text>Item ${i.n}</text><cut/></repeat></receipt>"#,
      data: #"{"items": \#(items)}"#, format: "png")
    #expect(pages.status == 200, "\(String(decoding: pages.body.prefix(300), as: UTF8.self))")
    #expect(pages.headers["receipt-pages"] == "10000")
    #expect(alive(daemon))
    let peak = try #require(daemon.peakMemory)
    #expect(peak < 512 << 20, "the daemon's peak RSS was \(peak >> 20) MiB")
  }

  /// An item name of 1 MiB without a break point, through the shipped template with hyphenation
  /// on: laid out in linear time (breaking was quadratic: 80,000 letters took 12 s). The CPU time
  /// the kernel counted is the measure, not the test's clock.
  @Test(arguments: ["a", "7"])
  func aMegabyteWordLaysOutInUnderASecond(letter: String) throws {
    let dir = try Tool.temporaryDirectory()
    var order = try String(contentsOfFile: "\(templates)/Examples/small.json", encoding: .utf8)
    order = order.replacingOccurrences(of: "\"Cappuccino\"", with: "\"\(String(repeating: letter, count: 1 << 20))\"")
    let input = dir.appendingPathComponent("long.json")
    try order.write(to: input, atomically: true, encoding: .utf8)
    let (result, cost) = try Tool.runMeasured(
      receipt, ["measure", input.path, "--templates", templates, "--locale", "en_US"])
    // 1 MiB of letters wrap to far more than the 4 m a receipt may be: the answer is that error.
    #expect(result.status == 65 && result.stderr.contains("receipts are at most 4000 mm"), "\(result.stderr)")
    #expect(cost.cpuSeconds < 1, "\(cost.cpuSeconds) s of CPU")
  }

  /// 2,000 event streams (and 40 with maxConnections 8) leave the API answering: streams have a
  /// cap of their own, and the oldest one ends when a new one comes. The streams are held by a
  /// process of their own (Python's sockets): 2,000 descriptors in this test process made
  /// Foundation's `Process.run` of a test running beside it crash (it copies every open
  /// descriptor's number into a buffer of its own).
  @Test(arguments: [(2000, ""), (40, #""maxConnections": 8"#)])
  func eventStreamsCannotLockTheAPIOut(streams: Int, settings: String) throws {
    let (daemon, work) = try daemon(settings: settings)
    defer { _ = daemon.terminate() }
    let ready = work.appendingPathComponent("streams-\(streams)")
    let script = """
      import os, resource, socket, sys, time
      port, count, ready = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
      _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
      resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
      request = b"GET /v1/events HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nAccept: text/event-stream\\r\\n\\r\\n"
      held = []
      for _ in range(count):
          try:
              connection = socket.create_connection(("127.0.0.1", port), timeout=10)
              connection.sendall(request)
              held.append(connection)
          except OSError:
              break
      open(ready + ".part", "w").write(str(len(held)))
      os.rename(ready + ".part", ready)
      time.sleep(120)  # ended by the test; bounded if the test is gone
      """
    let holder = try ChildProcess("/usr/bin/python3", ["-c", script, "\(daemon.port)", "\(streams)", ready.path])
    defer {
      holder.send(SIGKILL)
      holder.wait()
    }
    #expect(waitUntil(seconds: 60, poll: 0.05) { FileManager.default.fileExists(atPath: ready.path) })
    let connected = Int((try? String(contentsOf: ready, encoding: .utf8)) ?? "") ?? 0
    #expect(connected == streams, "every stream connected")
    #expect(alive(daemon), "/healthz answers beside \(streams) streams")
    #expect(
      try daemon.request("GET", "/v1/jobs", headers: ["Authorization": "Bearer \(Self.token)"], timeout: 2).status
        == 200)
  }

  /// A template edited in place whose modification time is put back (`cp -p`, `rsync --inplace
  /// -t`) is read again by the running daemon: only its change time says it changed, and the
  /// kept parse once printed the old template.
  @Test func anEditWithItsModificationTimeRestoredIsSeen() throws {
    let (daemon, work) = try daemon()
    defer { _ = daemon.terminate() }
    let template = work.appendingPathComponent("templates/edited.xml")
    try "<receipt><text>Pommes before</text></receipt>".write(to: template, atomically: true, encoding: .utf8)
    func text() throws -> String {
      let answer = try daemon.request(
        "POST", "/v1/render?format=pdf", body: Data(#"{"template": "edited", "data": {}}"#.utf8),
        headers: ["Authorization": "Bearer \(Self.token)"], timeout: 30)
      let pdf = work.appendingPathComponent("edited.pdf")
      try answer.body.write(to: pdf)
      return try Tool.run("pdftotext", [pdf.path, "-"]).stdout
    }
    #expect(try text().contains("Pommes before"))
    var original = stat()
    #expect(stat(template.path, &original) == 0)
    usleep(20_000)
    let handle = try #require(FileHandle(forWritingAtPath: template.path))
    try handle.write(contentsOf: Data("<receipt><text>Pommes after!</text></receipt>".utf8))
    try handle.close()
    var times = [original.st_atim, original.st_mtim]
    #expect(utimensat(AT_FDCWD, template.path, &times, 0) == 0)
    #expect(try text().contains("Pommes after!"), "the edit is printed, not the kept parse")
  }

  @Test func fontsComeOnlyFromFontDirectoriesAndTheTemplates() throws {
    let (daemon, work) = try daemon()
    defer { _ = daemon.terminate() }
    let fifo = work.appendingPathComponent("font.fifo").path
    #expect(mkfifo(fifo, 0o644) == 0)
    let outside = work.appendingPathComponent("DejaVuCopy.ttf")
    try FileManager.default.copyItem(atPath: "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", toPath: outside.path)
    var messages: [String] = []
    for path in [fifo, "/dev/zero", "/dev/usb/lp0", "/etc/passwd", outside.path, "/no/such/font.ttf"] {
      let started = Date()
      let answer = try preview(daemon, #"<receipt><text font="\#(path) 9">x</text></receipt>"#)
      #expect(Date().timeIntervalSince(started) < 1, "\(path) answered at once")
      #expect(answer.status == 422, "\(path): \(String(decoding: answer.body, as: UTF8.self))")
      let detail = (answer.json["detail"] as? String ?? "").replacingOccurrences(of: path, with: "PATH")
      messages.append(detail)
    }
    #expect(Set(messages).count == 1, "the same answer whether a file exists or not: \(Set(messages))")
    #expect(messages[0].contains("not a font file in fontconfig's font directories"), "\(messages[0])")
    #expect(alive(daemon))
    // Installed fonts by path, and a font file in the templates directory, are fine.
    let inside = work.appendingPathComponent("templates/Mine.ttf")
    try FileManager.default.copyItem(at: outside, to: inside)
    for path in ["/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", inside.path] {
      let answer = try preview(daemon, #"<receipt><text font="\#(path) 9">x</text></receipt>"#)
      #expect(answer.status == 200, "\(path): \(String(decoding: answer.body.prefix(300), as: UTF8.self))")
    }
  }

  @Test func templateWritesAndReadsRefuseSymlinks() throws {
    let (daemon, work) = try daemon()
    defer { _ = daemon.terminate() }
    let outside = work.appendingPathComponent("outside")
    try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
    let secret = outside.appendingPathComponent("secret.xml")
    try "<receipt><text>secret</text></receipt>".write(to: secret, atomically: true, encoding: .utf8)
    let dir = work.appendingPathComponent("templates")
    try FileManager.default.createSymbolicLink(
      atPath: dir.appendingPathComponent("evil.xml").path, withDestinationPath: secret.path)
    let auth = ["Authorization": "Bearer \(Self.token)", "Content-Type": "application/xml"]
    let body = Data("<receipt><text>overwritten</text></receipt>".utf8)
    let write = try daemon.request("PUT", "/v1/templates/evil", body: body, headers: auth)
    #expect(write.status == 409, "\(String(decoding: write.body, as: UTF8.self))")
    #expect(try String(contentsOf: secret, encoding: .utf8).contains("secret"), "the file outside is unchanged")
    let read = try daemon.request("GET", "/v1/templates/evil", headers: auth)
    #expect(read.status == 404, "\(String(decoding: read.body, as: UTF8.self))")
    // A symlinked .history: saving a template would copy the old version out through it.
    try FileManager.default.createSymbolicLink(
      atPath: dir.appendingPathComponent(".history").path, withDestinationPath: outside.path)
    let save = try daemon.request("PUT", "/v1/templates/receipt", body: body, headers: auth)
    #expect(save.status == 409, "\(String(decoding: save.body, as: UTF8.self))")
    #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path) == ["secret.xml"])
  }

  @Test func unixSecondsOutOfRangeAreAnError() throws {
    let dir = try Tool.temporaryDirectory()
    try "<receipt><text>${t | date}</text></receipt>".write(
      to: dir.appendingPathComponent("t.xml"), atomically: true, encoding: .utf8)
    for (value, hint) in [("1e18", "Unix seconds count from 1970"), ("1764000000000", "looks like milliseconds")] {
      let order = dir.appendingPathComponent("o.json")
      try #"{"t": \#(value)}"#.write(to: order, atomically: true, encoding: .utf8)
      let result = try Tool.run(
        receipt,
        [
          "render", order.path, "--templates", dir.path, "--template", "t", "-o",
          dir.appendingPathComponent("x.pdf").path,
        ])
      #expect(result.status == 65, "\(value): \(result.stderr)")
      #expect(result.stderr.contains("t.xml:1:") && result.stderr.contains(hint), "\(result.stderr)")
    }
  }
}
