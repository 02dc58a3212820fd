import Foundation
import ReceiptTestSupport
import Testing

/// IPPS: TLS on the shipped daemon's IPP listener, `ipp://` and `ipps://` on one port, read by
/// clients that are not receipt's — ipptool (libcups over GnuTLS: `ipps://`, the HTTP upgrade of
/// RFC 2817 with `-E`, and its answer to `426 Upgrade Required`), pyipp (Home Assistant's client,
/// aiohttp over OpenSSL) and Python's `ssl` module, whose certificate `openssl x509` reads.
@Suite(.serialized, .timeLimit(.minutes(10))) struct IPPSTests {
  let ipp = IPPEverywhereTests()

  /// The server certificate a TLS client gets on `port` (PEM), or the client's error; with
  /// `oldTLS` the client offers only TLS 1.0 and 1.1.
  func peerCertificate(_ port: UInt16, oldTLS: Bool = false) throws -> (pem: String, error: String) {
    let script = """
      import ssl, socket, sys
      c = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
      c.check_hostname = False
      c.verify_mode = ssl.CERT_NONE
      if sys.argv[2] == "old":
          c.set_ciphers("DEFAULT:@SECLEVEL=0")
          c.minimum_version = ssl.TLSVersion.TLSv1
          c.maximum_version = ssl.TLSVersion.TLSv1_1
      try:
          with socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10) as s:
              with c.wrap_socket(s) as t:
                  print(ssl.DER_cert_to_PEM_cert(t.getpeercert(binary_form=True)), end="")
      except ssl.SSLError as e:
          print(e.reason, file=sys.stderr)
      """
    let run = try Tool.run("python3", ["-W", "ignore", "-c", script, "\(port)", oldTLS ? "old" : "new"])
    return (run.stdout, run.stderr)
  }

  /// CUPS' conformance suite `ipp-everywhere.test` passes over `ipps://` (libcups encrypts
  /// from the first byte), and the jobs it prints come out.
  @Test func theConformanceSuitePassesOverIPPS() throws {
    let directory = try Tool.temporaryDirectory()
    let (daemon, _) = try ipp.daemon(["archive": "dir:\(directory.path)"])
    defer { _ = daemon.terminate() }
    let suite = try IPPClient.conformanceSuite(dpi: 203)
    let run = try IPPClient.run(
      "ipps://127.0.0.1:\(daemon.ippPort ?? 0)/ipp/print/archive", ["-f", "testfile.pdf"],
      tests: ["ipp-everywhere.test"], directory: suite)
    print("ipptool ipp-everywhere.test over ipps:\n\(run.output)")
    #expect(run.status == 0 && run.failures.isEmpty, "\(run.failures)")
    #expect(run.output.contains("PWG 5100.14 section 5.1/5.2 - Required Operations and Attributes     [PASS]"))
    #expect(run.output.contains("RFC 8011 section 4.2.1: Print-Job Operation"))
    let printed = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    #expect(!printed.isEmpty, "the suite's jobs printed")
  }

  /// A plain connection upgraded to TLS (`ipptool -E`, RFC 2817's `OPTIONS *` with
  /// `Upgrade: TLS/1.2`) is answered as an `ipps://` one; both URIs are the printer's, each with
  /// its security (RFC 8011 `uri-security-supported`: `none`, `tls`).
  @Test func anUpgradedConnectionIsEncryptedAndBothURIsAreListed() throws {
    let (daemon, _) = try ipp.daemon(["till": "dir:\(try Tool.temporaryDirectory().path)"])
    defer { _ = daemon.terminate() }
    let port = daemon.ippPort ?? 0
    let upgraded = try IPPClient.run(
      "ipp://127.0.0.1:\(port)/ipp/print/till", ["-E", "-v"], tests: ["get-printer-attributes.test"])
    #expect(upgraded.status == 0, "\(upgraded.output)")
    #expect(upgraded.values("printer-more-info") == ["https://localhost:\(port)/ipp/print/till"], "\(upgraded.output)")
    let plain = try IPPClient.request("ipp://127.0.0.1:\(port)/ipp/print/till", operation: "Get-Printer-Attributes")
    #expect(plain.values("printer-more-info") == ["http://localhost:\(port)/ipp/print/till"])
    #expect(
      plain.values("printer-uri-supported")
        == ["ipp://localhost:\(port)/ipp/print/till,ipps://localhost:\(port)/ipp/print/till"])
    #expect(plain.values("uri-security-supported") == ["none,tls"])
  }

  /// The certificate the daemon makes is kept (the same after a restart, in files only its user
  /// reads), names the machine as DNS-SD advertises it and the loopback addresses, is valid at
  /// most 398 days (what browsers and Apple accept), and TLS below 1.2 is refused.
  @Test func theCertificateIsMadeOnceKeptAndNamesTheMachine() throws {
    let (daemon, work) = try ipp.daemon(["till": "dir:\(try Tool.temporaryDirectory().path)"])
    defer { _ = daemon.terminate() }
    let first = try peerCertificate(daemon.ippPort ?? 0)
    #expect(first.pem.hasPrefix("-----BEGIN CERTIFICATE-----"), "\(first.error)")
    let file = work.appendingPathComponent("cert.pem")
    try first.pem.write(to: file, atomically: true, encoding: .utf8)
    let text = try Tool.run("openssl", ["x509", "-in", file.path, "-noout", "-text"]).stdout
    let host = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? ""
    for name in ["DNS:\(host)", "DNS:\(host).local", "DNS:localhost", "IP Address:127.0.0.1"] {
      #expect(text.contains(name), "\(name) in \(text)")
    }
    #expect(text.contains("TLS Web Server Authentication"), "extended key usage serverAuth")
    let dates = try Tool.run("openssl", ["x509", "-in", file.path, "-noout", "-startdate", "-enddate"]).stdout
    let parsed = dates.split(separator: "\n").compactMap { line -> Date? in
      let formatter = DateFormatter()
      formatter.locale = Locale(identifier: "en_US_POSIX")
      formatter.dateFormat = "MMM d HH:mm:ss yyyy zzz"
      let value = line.split(separator: "=", maxSplits: 1).last.map(String.init) ?? ""
      return formatter.date(from: value.replacingOccurrences(of: "  ", with: " "))
    }
    try #require(parsed.count == 2, "\(dates)")
    if parsed.count == 2 {
      #expect(parsed[1].timeIntervalSince(parsed[0]) <= 398 * 86_400, "\(dates)")
      #expect(parsed[1].timeIntervalSinceNow > 300 * 86_400, "\(dates)")
    }
    let kept = work.appendingPathComponent("queue-tls")
    for name in ["certificate.pem", "key.pem"] {
      let mode =
        try FileManager.default.attributesOfItem(atPath: kept.appendingPathComponent(name).path)[
          .posixPermissions] as? Int
      #expect(mode == 0o600, "\(name): \(String(mode ?? 0, radix: 8))")
    }
    let old = try peerCertificate(daemon.ippPort ?? 0, oldTLS: true)
    #expect(old.pem.isEmpty && old.error.contains("PROTOCOL_VERSION"), "TLS 1.1 is refused by the daemon: \(old.error)")
    _ = daemon.terminate()
    try daemon.start()
    #expect(waitUntil(seconds: 10) { daemon.ippPort != nil })
    #expect(try peerCertificate(daemon.ippPort ?? 0).pem == first.pem, "the same certificate after a restart")
  }

  /// `ippTLS: required` (here as `RECEIPT_IPP_TLS=required`): a plain IPP request gets `426
  /// Upgrade Required` naming TLS (curl), and libcups, told so, reconnects and upgrades by itself —
  /// an `ipp://` client still prints; only `ipps://` is listed. A browser's plain `GET` of the
  /// printer's page is sent to the same page over `https://` on the same port, which curl follows
  /// to the page; a `Host` with anything but a host name's characters (a space, `<`, non-ASCII)
  /// gets the `426`.
  @Test func requiredTLSTurnsPlainRequestsAway() throws {
    let directory = try Tool.temporaryDirectory()
    let (daemon, _) = try ipp.daemon(["till": "dir:\(directory.path)"], environment: ["RECEIPT_IPP_TLS": "required"])
    defer { _ = daemon.terminate() }
    let port = daemon.ippPort ?? 0
    let head = try Tool.run(
      "curl",
      ["-s", "-i", "-X", "POST", "-H", "Content-Type: application/ipp", "http://127.0.0.1:\(port)/ipp/print/till"]
    ).stdout
    #expect(head.hasPrefix("HTTP/1.1 426"), "\(head)")
    #expect(head.lowercased().contains("upgrade: tls/1.2"), "\(head)")
    let page = try Tool.run("curl", ["-s", "-i", "http://127.0.0.1:\(port)/ipp/print/till"]).stdout
    #expect(page.hasPrefix("HTTP/1.1 301"), "\(page)")
    #expect(page.contains("Location: https://127.0.0.1:\(port)/ipp/print/till\r\n"), "\(page)")
    let followed = try Tool.run(
      "curl", ["-s", "-k", "-L", "-o", "/dev/null", "-w", "%{http_code} %{url_effective}", "http://127.0.0.1:\(port)/"])
    #expect(followed.stdout == "200 https://127.0.0.1:\(port)/", "\(followed.stdout)")
    for host in ["a b<x>", "prïnter.local"] {
      let odd = try Tool.run("curl", ["-s", "-i", "-H", "Host: \(host)", "http://127.0.0.1:\(port)/"]).stdout
      #expect(odd.hasPrefix("HTTP/1.1 426"), "Host: \(host): \(odd)")
    }
    let run = try IPPClient.request("ipp://127.0.0.1:\(port)/ipp/print/till", operation: "Get-Printer-Attributes")
    #expect(run.status == 0, "\(run.output)")
    #expect(run.values("printer-uri-supported") == ["ipps://localhost:\(port)/ipp/print/till"])
    #expect(run.values("uri-security-supported") == ["tls"])
  }

  /// The operator's certificate and key (made here by `openssl req`) replace the self-made one;
  /// a key that is not the certificate's stops the daemon with both files named; `ippTLS: off`
  /// speaks no TLS.
  @Test func anOperatorsCertificateIsServedAndABadOneStopsTheStart() throws {
    let work = try Tool.temporaryDirectory()
    let (certificate, key) = (work.appendingPathComponent("printer.crt"), work.appendingPathComponent("printer.key"))
    let made = try Tool.run(
      "openssl",
      [
        "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key.path, "-out", certificate.path, "-days", "30",
        "-subj", "/CN=printer.shop.example",
      ])
    #expect(made.status == 0, "\(made.stderr)")
    let settings = #", "ippCertificate": "\#(certificate.path)", "ippPrivateKey": "\#(key.path)""#
    do {
      let (daemon, _) = try ipp.daemon(["till": "dir:\(work.path)"], settings: settings)
      defer { _ = daemon.terminate() }
      let served = try peerCertificate(daemon.ippPort ?? 0).pem
      #expect(served == (try String(contentsOf: certificate, encoding: .utf8)), "the operator's certificate is served")
    }
    let other = work.appendingPathComponent("other.key")
    _ = try Tool.run("openssl", ["genrsa", "-out", other.path, "2048"])
    let config = work.appendingPathComponent("bad.json")
    try """
    {"database": "\(work.appendingPathComponent("bad.sqlite").path)", "printers": {"till": "dir:\(work.path)"},
     "ippPort": 0, "ippCertificate": "\(certificate.path)", "ippPrivateKey": "\(other.path)"}
    """.write(to: config, atomically: true, encoding: .utf8)
    let refused = try Tool.run(try Tool.shippedBinary(), ["serve", "--port", "0", "--config", config.path])
    #expect(refused.status != 0)
    #expect(refused.stderr.contains(certificate.path) && refused.stderr.contains(other.path), "\(refused.stderr)")
    let (plain, _) = try ipp.daemon(["till": "dir:\(work.path)"], settings: #", "ippTLS": "off""#)
    defer { _ = plain.terminate() }
    #expect(try peerCertificate(plain.ippPort ?? 0).pem.isEmpty, "no TLS when it is off")
  }

  /// The first bytes decide what a connection speaks, and they are untrusted: a handshake of
  /// garbage, an upgrade followed by garbage, an `OPTIONS` head that never ends (past the 8 KiB
  /// kept), a connection that sends nothing and bytes after a 426 each end their own connection
  /// only — the daemon answers over TLS and plain HTTP after every one of them.
  @Test func hostileFirstBytesEndTheirConnectionOnly() throws {
    for settings in ["", #", "ippTLS": "required""#] {
      let (daemon, _) = try ipp.daemon(["till": "dir:\(try Tool.temporaryDirectory().path)"], settings: settings)
      defer { _ = daemon.terminate() }
      let port = daemon.ippPort ?? 0
      let script = """
        import os, socket, sys, time
        port = int(sys.argv[1])
        attempts = [
            b"\\x16\\x03\\x01" + os.urandom(4000),
            b"OPTIONS * HTTP/1.1\\r\\nHost: localhost\\r\\nConnection: Upgrade\\r\\nUpgrade: TLS/1.2\\r\\n\\r\\n" + os.urandom(3000),
            b"OPTIONS * HTTP/1.1\\r\\nX: " + b"a" * 20000,
            b"",
            b"GET / HTTP/1.1\\r\\nHost: localhost\\r\\n\\r\\n" + b"GET / HTTP/1.1\\r\\nHost: localhost\\r\\n\\r\\n" * 50,
        ]
        for data in attempts:
            with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
                try:
                    s.sendall(data)
                    s.settimeout(1)
                    s.recv(65536)
                except OSError:
                    pass
        print("sent")
        """
      let run = try Tool.run("python3", ["-c", script, "\(port)"])
      #expect(run.stdout.contains("sent"), "\(run.stderr)")
      #expect((try? daemon.request("GET", "/healthz", timeout: 5).status) == 200, "the daemon is up")
      #expect(try peerCertificate(port).pem.hasPrefix("-----BEGIN CERTIFICATE-----"), "TLS still answers")
      let plain = try Tool.run("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(port)/"])
      #expect(plain.stdout == (settings.isEmpty ? "200" : "301"), "plain HTTP still answers: \(plain.stdout)")
    }
  }
}
