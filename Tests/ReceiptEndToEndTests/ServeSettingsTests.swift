import Foundation
import ReceiptTestSupport
import Testing

/// Every `receipt serve` setting the README's configuration table gives an environment variable
/// or a flag, set that way on the shipped binary and seen in what the daemon does; the layers
/// in the README's order (file, then environment, then flags, each overriding the one before);
/// and the defaults it documents.
@Suite(.serialized, .timeLimit(.minutes(5))) struct ServeSettingsTests {
  static let token = "env-token-0123456789"
  static let flagToken = "flag-token-0123456789"

  /// A templates directory with one template of its own (`solo`), to tell it from the shipped ones.
  static func templates() throws -> URL {
    let dir = try Tool.temporaryDirectory().appendingPathComponent("templates")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    try "<receipt><text>solo</text></receipt>".write(
      to: dir.appendingPathComponent("solo.xml"), atomically: true, encoding: .utf8)
    return dir
  }

  static func raw(_ daemon: Daemon, _ head: String) throws -> String {
    try RawConnection.request(port: Int(daemon.port), head + "Connection: close\r\n\r\n", timeout: 10)
  }

  @Test func theEnvironmentSetsEverySettingAndFlagsOverrideIt() throws {
    let work = try Tool.temporaryDirectory()
    for name in ["a", "b"] {
      try FileManager.default.createDirectory(
        at: work.appendingPathComponent(name), withIntermediateDirectories: true)
    }
    let config = work.appendingPathComponent("serve.json")
    try #"{"maxAttempts": 2, "shutdownGrace": 1}"#.write(to: config, atomically: true, encoding: .utf8)
    let port = try PrintRig.freePortForTests()
    let environment = [
      "RECEIPT_CONFIG": config.path, "RECEIPT_HOST": "127.0.0.1", "RECEIPT_PORT": "\(port)",
      "RECEIPT_DB": work.appendingPathComponent("env.sqlite").path,
      "RECEIPT_TEMPLATES": try Self.templates().path,
      "RECEIPT_PRINTERS": "a=dir:\(work.path)/a,b=dir:\(work.path)/b,gone=cups:gone",
      "RECEIPT_DEFAULT_PRINTER": "b", "RECEIPT_TOKENS": Self.token,
      "RECEIPT_CORS_ORIGINS": "https://pos.example.com", "RECEIPT_HOST_NAMES": "till.local",
      // "gone" is a CUPS queue on a server nobody runs: each attempt fails and is retried.
      "CUPS_SERVER": "127.0.0.1:9",
      // The IPP printers would take the chosen port + 2, which another process may hold.
      "RECEIPT_IPP": "off",
    ]
    let daemon = try Daemon(
      arguments: [], environment: environment, log: work.appendingPathComponent("env.log"), choosesPort: false)
    try daemon.start()
    defer { _ = daemon.terminate() }
    #expect(daemon.port == port, "RECEIPT_PORT")
    #expect(FileManager.default.fileExists(atPath: work.appendingPathComponent("env.sqlite").path), "RECEIPT_DB")
    let auth = ["Authorization": "Bearer \(Self.token)"]
    #expect(try daemon.request("GET", "/v1/templates").status == 401, "RECEIPT_TOKENS: a token is needed")
    let templates = try daemon.request("GET", "/v1/templates", headers: auth)
    #expect(templates.json["templates"] as? [String] == ["solo"], "RECEIPT_TEMPLATES: \(templates.json)")
    let printers = try daemon.request("GET", "/v1/printers", headers: auth).json["printers"] as? [[String: Any]]
    #expect(Set(printers?.compactMap { $0["name"] as? String } ?? []) == ["a", "b", "gone"], "RECEIPT_PRINTERS")
    let job = try daemon.request(
      "POST", "/v1/jobs", body: Data(#"{"template": "solo", "data": {}}"#.utf8), headers: auth)
    #expect(job.status == 202 && job.json["printer"] as? String == "b", "RECEIPT_DEFAULT_PRINTER: \(job.json)")
    // RECEIPT_CORS_ORIGINS and RECEIPT_HOST_NAMES, on the wire.
    let allowed = try Self.raw(
      daemon,
      "GET /v1/templates HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: https://pos.example.com\r\n"
        + "Authorization: Bearer \(Self.token)\r\n")
    #expect(allowed.hasPrefix("HTTP/1.1 200"), "\(allowed.prefix(120))")
    let foreign = try Self.raw(
      daemon,
      "GET /v1/templates HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: https://evil.example\r\n"
        + "Authorization: Bearer \(Self.token)\r\n")
    #expect(foreign.hasPrefix("HTTP/1.1 403"), "\(foreign.prefix(120))")
    #expect(try Self.raw(daemon, "GET /healthz HTTP/1.1\r\nHost: till.local\r\n").hasPrefix("HTTP/1.1 200"))
    #expect(try Self.raw(daemon, "GET /healthz HTTP/1.1\r\nHost: evil.example\r\n").hasPrefix("HTTP/1.1 421"))
    // RECEIPT_CONFIG's maxAttempts: a CUPS server out of reach; the job is dead after 2 attempts.
    let gone = try daemon.request(
      "POST", "/v1/jobs", body: Data(#"{"template": "solo", "printer": "gone", "data": {}}"#.utf8), headers: auth)
    let goneID = try #require(gone.json["id"] as? String)
    #expect(
      waitUntil(seconds: 60) {
        (try? daemon.request("GET", "/v1/jobs/\(goneID)", headers: auth).json["state"] as? String) == "dead"
      })
    #expect(try daemon.request("GET", "/v1/jobs/\(goneID)", headers: auth).json["attempts"] as? Int == 2)
    #expect(daemon.terminate() == 0)
    let log = try String(contentsOf: work.appendingPathComponent("env.log"), encoding: .utf8)
    #expect(!log.contains("the workers stopped"), "a clean stop logs no error: \(log)")

    // Flags over the same environment: each wins over its variable.
    let flagged = try Daemon(
      arguments: [
        "--default-printer", "a", "--token", Self.flagToken, "--cors-origin", "https://other.example",
        "--max-attempts", "1",
      ], environment: environment, log: work.appendingPathComponent("flags.log"))
    try flagged.start()
    defer { _ = flagged.terminate() }
    let flagAuth = ["Authorization": "Bearer \(Self.flagToken)"]
    #expect(try flagged.request("GET", "/v1/templates", headers: auth).status == 401, "--token replaces the variable")
    let second = try flagged.request(
      "POST", "/v1/jobs", body: Data(#"{"template": "solo", "data": {}}"#.utf8), headers: flagAuth)
    #expect(second.json["printer"] as? String == "a", "--default-printer: \(second.json)")
    let other = try Self.raw(
      flagged,
      "GET /v1/templates HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: https://other.example\r\n"
        + "Authorization: Bearer \(Self.flagToken)\r\n")
    #expect(other.hasPrefix("HTTP/1.1 200"), "--cors-origin: \(other.prefix(120))")
    let once = try flagged.request(
      "POST", "/v1/jobs", body: Data(#"{"template": "solo", "printer": "gone", "data": {}}"#.utf8), headers: flagAuth)
    let onceID = try #require(once.json["id"] as? String)
    #expect(
      waitUntil(seconds: 60) {
        (try? flagged.request("GET", "/v1/jobs/\(onceID)", headers: flagAuth).json["state"] as? String) == "dead"
      })
    #expect(try flagged.request("GET", "/v1/jobs/\(onceID)", headers: flagAuth).json["attempts"] as? Int == 1)
  }

  /// The IPP printers' settings: `RECEIPT_IPP_PORT`/`--ipp-port` and `RECEIPT_IPP_HOST`/
  /// `--ipp-host` (flags over the environment), `ippHost` in the file, `RECEIPT_IPP=off` and
  /// `--no-ipp` turn them off, the default port is the API's + 2, and `printerPapers` is the roll
  /// IPP clients are offered (58 mm: media 58 mm wide).
  @Test func theIPPPrintersHaveTheirOwnSettings() throws {
    let work = try Tool.temporaryDirectory()
    let config = work.appendingPathComponent("serve.json")
    try """
    {"printers": {"kiosk": "dir:\(work.path)"}, "printerModels": {"kiosk": "generic-58mm"},
     "printerPapers": {"kiosk": "58mm"}, "ippHost": "127.0.0.2", "database": "\(work.path)/q.sqlite",
     "templates": "\(Tool.packageRoot.appendingPathComponent("Templates").path)"}
    """.write(to: config, atomically: true, encoding: .utf8)
    let (envPort, flagPort) = (try PrintRig.freePortForTests(), try PrintRig.freePortForTests())
    func media(_ port: UInt16, host: String = "127.0.0.1") -> [String] {
      let run = try? IPPClient.request(
        "ipp://\(host):\(port)/ipp/print/kiosk", operation: "Get-Printer-Attributes",
        ["ATTR keyword requested-attributes media-default,media-size-supported"])
      return (run?.values("media-default") ?? []) + (run?.values("media-size-supported") ?? [])
    }
    // The environment's port and host; the file's ippHost yields to RECEIPT_IPP_HOST.
    let byEnvironment = try Daemon(
      arguments: ["--config", config.path],
      environment: ["RECEIPT_IPP_PORT": "\(envPort)", "RECEIPT_IPP_HOST": "127.0.0.1"],
      log: work.appendingPathComponent("env.log"))
    try byEnvironment.start()
    #expect(waitUntil(seconds: 10) { byEnvironment.ippPort == envPort }, "RECEIPT_IPP_PORT")
    #expect(media(envPort).first == "om_roll-58mm_58x200mm", "printerPapers: \(media(envPort))")
    #expect(media(envPort).dropFirst().allSatisfy { $0.contains("x-dimension=5800") })
    _ = byEnvironment.terminate()
    // Flags over the environment; the file's ippHost when nothing overrides it.
    let byFlags = try Daemon(
      arguments: ["--config", config.path, "--ipp-port", "\(flagPort)"],
      environment: ["RECEIPT_IPP_PORT": "\(envPort)"], log: work.appendingPathComponent("flags.log"))
    try byFlags.start()
    #expect(waitUntil(seconds: 10) { byFlags.ippPort == flagPort }, "--ipp-port over RECEIPT_IPP_PORT")
    #expect(!media(flagPort, host: "127.0.0.2").isEmpty, "ippHost from the file: it listens on 127.0.0.2")
    #expect(media(flagPort).isEmpty, "and not on 127.0.0.1")
    _ = byFlags.terminate()
    let byHostFlag = try Daemon(
      arguments: ["--config", config.path, "--ipp-port", "\(flagPort)", "--ipp-host", "127.0.0.1"],
      log: work.appendingPathComponent("host.log"))
    try byHostFlag.start()
    #expect(waitUntil(seconds: 10) { !media(flagPort).isEmpty }, "--ipp-host")
    _ = byHostFlag.terminate()
    // Off: by the environment, by the flag.
    for (arguments, environment) in [([String](), ["RECEIPT_IPP": "off"]), (["--no-ipp"], [:])] {
      let off = try Daemon(
        arguments: ["--config", config.path] + arguments, environment: environment,
        log: work.appendingPathComponent("off.log"))
      try off.start()
      #expect(off.ippPort == nil, "\(arguments) \(environment): no IPP printers")
      _ = off.terminate()
    }
    // The default: the API's port + 2.
    let apiPort = try PrintRig.freePortForTests()
    let byDefault = try Daemon(
      arguments: ["--config", config.path, "--port", "\(apiPort)", "--ipp-host", "127.0.0.1"],
      log: work.appendingPathComponent("default.log"), choosesPort: false)
    try byDefault.start()
    #expect(waitUntil(seconds: 10) { byDefault.ippPort == apiPort + 2 }, "ippPort defaults to port + 2")
    _ = byDefault.terminate()
  }

  /// A part that cannot start (the IPP port taken by another program) stops the daemon with its
  /// error and exit status 1, its printers' workers with it — once a canceled worker spun until
  /// the group's cancellation bound trapped (132, "Cancellation took longer than allowed").
  @Test func aPartThatCannotStartStopsTheDaemonWithItsError() throws {
    let work = try Tool.temporaryDirectory()
    let (held, port) = try Loopback.listen()
    defer { close(held) }
    let run = try Tool.run(
      "timeout",
      [
        "-s", "KILL", "60", try Tool.shippedBinary(), "serve", "--port", "0", "--ipp-port", "\(port)", "--db",
        work.appendingPathComponent("q.sqlite").path, "--printer", "box=dir:\(work.path)", "--templates",
        Tool.packageRoot.appendingPathComponent("Templates").path,
      ])
    #expect(run.status == 1, "status \(run.status): \(run.stderr.suffix(600))")
    #expect(run.stderr.contains("Address already in use"), "\(run.stderr.suffix(600))")
    #expect(!run.stderr.contains("Cancellation took longer"))
  }

  /// `--ipp-host 0.0.0.0` (and `::`) listens on IPv4 and IPv6 alike — Avahi advertises the
  /// printer's IPv6 address too, and a phone may take it — and the address is printed as a URI
  /// writes it (`ipp://[::]:PORT/…`, RFC 3986 3.2.2; `:::PORT` once). curl with an IPv6
  /// literal reaches the printer's page, and libcups' ipptool reaches it over IPv4.
  @Test func everyAddressIsIPv4AndIPv6() throws {
    let work = try Tool.temporaryDirectory()
    for host in ["0.0.0.0", "::"] {
      let port = try PrintRig.freePortForTests()
      let daemon = try Daemon(
        arguments: [
          "--port", "0", "--ipp-host", host, "--ipp-port", "\(port)", "--db",
          work.appendingPathComponent("q.sqlite").path,
          "--printer", "box=dir:\(work.path)", "--templates", Tool.packageRoot.appendingPathComponent("Templates").path,
        ], log: work.appendingPathComponent("\(port).log"))
      try daemon.start()
      defer { _ = daemon.terminate() }
      #expect(waitUntil(seconds: 10) { daemon.ippPort == port }, "\(host): the IPP line names its port")
      let printed = (try? String(contentsOf: work.appendingPathComponent("\(port).log"), encoding: .utf8)) ?? ""
      let expected = host == "::" ? "ipp://[::]:\(port)/ipp/print/NAME" : "ipp://0.0.0.0:\(port)/ipp/print/NAME"
      #expect(printed.contains(expected), "\(host): \(printed.suffix(400))")
      let v6 = try Tool.run(
        "curl", ["-g", "-s", "-o", "/dev/null", "-w", "%{http_code}", "http://[::1]:\(port)/ipp/print/box"])
      #expect(v6.stdout == "200", "\(host): IPv6 loopback: \(v6.stdout) \(v6.stderr)")
      let v4 = try IPPClient.request("ipp://127.0.0.1:\(port)/ipp/print/box", operation: "Get-Printer-Attributes")
      #expect(v4.status == 0, "\(host): IPv4: \(v4.output.suffix(300))")
    }
  }
}
