import Foundation
import ReceiptTestSupport
import Testing

/// E-receipts through a real mail transport on loopback: the shipped daemon hands each message to
/// msmtp (Debian's, through the sendmail interface), msmtp delivers it over SMTP to aiosmtpd (a
/// real SMTP server, PyPI) which stores it in a Maildir, and Python's `mailbox` and `email`
/// read it back — the PDF attached byte for byte as `/v1/render` draws it, exactly once, also when
/// the daemon is killed with SIGKILL while the transport has the message.
@Suite(.timeLimit(.minutes(3))) struct EReceiptTests {
  static let templates = Tool.packageRoot.appendingPathComponent("Templates").path

  /// An SMTP server on loopback storing what it receives in `maildir`; stopped by `stop()`.
  final class SMTPServer: @unchecked Sendable {
    let process: ChildProcess
    let port: UInt16
    let maildir: URL

    init(in work: URL) throws {
      port = try PrintRig.freePortForTests()
      maildir = work.appendingPathComponent("Maildir")
      let log = work.appendingPathComponent("smtp.log")
      // `env`: the python3 the test tools are in.
      process = try ChildProcess(
        "/usr/bin/env",
        [
          "python3", "-m", "aiosmtpd", "-n", "-l", "127.0.0.1:\(port)", "-c", "aiosmtpd.handlers.Mailbox", maildir.path,
        ], stdout: .write(log), stderr: .standardOutput)
      let port = self.port
      let up = waitUntil(seconds: 20) { (try? Loopback.connect(port: port)).map { close($0) } != nil }
      try #require(up, "aiosmtpd listens on \(port): \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
    }

    func stop() {
      process.send(SIGKILL)
      process.wait()
    }

    /// The messages received: recipient, subject, text and the attached PDF.
    func messages() throws -> [[String: String]] {
      let script = """
        import base64, json, mailbox, sys
        out = []
        for message in mailbox.Maildir(sys.argv[1], create=False):
            item = {"to": message["To"], "subject": str(message["Subject"]), "id": message["Message-ID"]}
            for part in message.walk():
                if part.get_content_type() == "text/plain":
                    item["text"] = part.get_payload(decode=True).decode("utf-8")
                if part.get_content_type() == "application/pdf":
                    item["pdf"] = base64.b64encode(part.get_payload(decode=True)).decode()
                    item["file"] = part.get_filename()
            out.append(item)
        print(json.dumps(out))
        """
      guard FileManager.default.fileExists(atPath: maildir.appendingPathComponent("new").path) else { return [] }
      let result = try Tool.run("python3", ["-c", script, maildir.path])
      try #require(result.status == 0, "\(result.stderr)")
      return try #require(try JSONSerialization.jsonObject(with: result.output) as? [[String: String]])
    }
  }

  /// The daemon with one e-mail destination; its transport is msmtp, optionally slowed down by a
  /// wrapper that marks when it started (the moment to kill the daemon).
  /// A daemon with mail destinations and its SMTP server, both stopped when `body` returns.
  func withMailDaemon(slow: Bool = false, _ body: (URL, SMTPServer, Daemon) throws -> Void) throws {
    let work = try Tool.temporaryDirectory()
    let smtp = try SMTPServer(in: work)
    defer { smtp.stop() }
    let daemon = try daemon(work, smtp: smtp, slow: slow)
    try daemon.start()
    defer { _ = daemon.terminate() }
    try body(work, smtp, daemon)
  }

  func daemon(_ work: URL, smtp: SMTPServer, slow: Bool = false) throws -> Daemon {
    let rc = work.appendingPathComponent("msmtprc")
    try """
    defaults
    auth off
    tls off
    account default
    host 127.0.0.1
    port \(smtp.port)
    from receipts@cafe.example
    """.write(to: rc, atomically: true, encoding: .utf8)
    chmod(rc.path, 0o600)
    var transport = ["/usr/bin/msmtp", "-C", rc.path]
    if slow {
      let wrapper = work.appendingPathComponent("slow-sendmail")
      try """
      #!/bin/sh
      touch \(work.appendingPathComponent("transport-started").path)
      sleep 3
      exec /usr/bin/msmtp -C \(rc.path) "$@"
      """.write(to: wrapper, atomically: true, encoding: .utf8)
      chmod(wrapper.path, 0o755)
      transport = [wrapper.path]
    }
    let sendmail = transport.map { "\"\($0)\"" }.joined(separator: ", ")
    try """
    {"printers": {"inbox": "mail:", "accounts": "mail:books@cafe.example"}, "mailFrom": "receipts@cafe.example",
     "sendmail": [\(sendmail)]}
    """.write(to: work.appendingPathComponent("serve.json"), atomically: true, encoding: .utf8)
    return try Daemon(
      arguments: [
        "--config", work.appendingPathComponent("serve.json").path, "--db",
        work.appendingPathComponent("queue.sqlite").path, "--templates", Self.templates,
      ], log: work.appendingPathComponent("serve.log"))
  }

  static var order: String {
    get throws { try String(contentsOfFile: "\(templates)/Examples/small.json", encoding: .utf8) }
  }

  /// `POST /v1/jobs` of the example order through `receipt` to `printer`, to `email` if given.
  func submit(_ daemon: Daemon, printer: String, email: String? = nil) throws -> Daemon.Response {
    let address = email.map { #", "email": "\#($0)""# } ?? ""
    let body = #"{"template": "receipt", "printer": "\#(printer)"\#(address), "data": \#(try Self.order)}"#
    return try daemon.request("POST", "/v1/jobs", body: Data(body.utf8))
  }

  func completed(_ daemon: Daemon, _ id: String) -> Bool {
    waitUntil(seconds: 60) { (try? daemon.request("GET", "/v1/jobs/\(id)").json["state"] as? String) == "completed" }
  }

  @Test func anEReceiptArrivesWithTheRenderedPDF() throws {
    try withMailDaemon { work, smtp, daemon in
      let order = try Self.order
      let job = try submit(daemon, printer: "inbox", email: "anna@example.com")
      #expect(job.status == 202, "\(String(decoding: job.body, as: UTF8.self))")
      let id = try #require(job.json["id"] as? String)
      #expect(job.json["email"] as? String == "anna@example.com")
      #expect(
        completed(daemon, id),
        "\((try? String(contentsOf: work.appendingPathComponent("serve.log"), encoding: .utf8)) ?? "")")
      let preview = try daemon.request(
        "POST", "/v1/render?format=pdf", body: Data(#"{"template": "receipt", "data": \#(order)}"#.utf8))
      let messages = try smtp.messages()
      try #require(messages.count == 1, "\(messages.map { $0["to"] ?? "" })")
      let message = messages[0]
      #expect(message["to"] == "anna@example.com")
      #expect(message["subject"] == "Receipt 1042", "the template's title: \(message["subject"] ?? "")")
      #expect(message["id"] == "<\(id)@cafe.example>")
      #expect(message["text"]?.contains("Corner Café") == true, "\(message["text"] ?? "")")
      #expect(message["file"] == "Receipt-1042.pdf")
      #expect(
        Data(base64Encoded: message["pdf"] ?? "") == preview.body, "the attachment is /v1/render's PDF, byte for byte")

      // A fixed destination takes the order's own address from nowhere: every job goes to it.
      let books = try submit(daemon, printer: "accounts")
      #expect(books.status == 202)
      #expect(completed(daemon, try #require(books.json["id"] as? String)))
      #expect(try smtp.messages().contains { $0["to"] == "books@cafe.example" })
    }
  }

  /// An address that could add a header or a recipient, a missing one, and one for a printer
  /// are refused before anything is stored.
  @Test(arguments: [
    (#""printer": "inbox", "email": "anna@example.com\r\nBcc: all@example.com""#, 422),
    (#""printer": "inbox", "email": "-oQ/tmp@example.com""#, 422),
    (#""printer": "inbox""#, 422),
    (#""printer": "accounts", "email": "anna@example.com""#, 422),
    (#""printer": "inbox", "email": 42"#, 400),
  ])
  func badAddressesAreRefused(fields: String, status: Int) throws {
    try withMailDaemon { work, smtp, daemon in
      let body = #"{"template": "receipt", \#(fields), "data": {"number": "7"}}"#
      let response = try daemon.request("POST", "/v1/jobs", body: Data(body.utf8))
      #expect(response.status == status, "\(fields): \(String(decoding: response.body, as: UTF8.self))")
      #expect((try daemon.request("GET", "/v1/jobs").json["jobs"] as? [Any])?.count == 0)
    }
  }

  /// SIGKILL while the transport has the message: after the restart the daemon finds the handoff
  /// still running, waits for it, and records the job completed — one message, never two.
  @Test func aKilledDaemonSendsTheMessageOnce() throws {
    try withMailDaemon(slow: true) { work, smtp, daemon in
      let job = try submit(daemon, printer: "inbox", email: "ben@example.com")
      let id = try #require(job.json["id"] as? String)
      let started = work.appendingPathComponent("transport-started")
      #expect(waitUntil(seconds: 30) { FileManager.default.fileExists(atPath: started.path) })
      daemon.kill9()
      try daemon.start()
      #expect(completed(daemon, id))
      // A second job after it: once it has arrived, the first cannot still be on its way.
      let second = try submit(daemon, printer: "inbox", email: "cleo@example.com")
      #expect(completed(daemon, try #require(second.json["id"] as? String)))
      let recipients = try smtp.messages().compactMap { $0["to"] }.sorted()
      #expect(recipients == ["ben@example.com", "cleo@example.com"], "exactly once each: \(recipients)")
    }
  }
}
