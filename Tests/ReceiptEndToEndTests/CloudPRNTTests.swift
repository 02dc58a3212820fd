import Foundation
import ReceiptTestSupport
import Testing

/// Star CloudPRNT printers come to the shipped daemon: a device simulated from Star's protocol
/// guide (``CloudPRNTDevice``, printing on a ``ThermalPrinterSimulator`` that reads Star raster
/// from Star's command specification) polls, fetches and confirms; every job prints once, in
/// order, at the preview's length; paper out holds the queue; a job fetched and never confirmed
/// is offered again marked as a reprint; a device without the right credentials gets nothing.
@Suite(.serialized) struct CloudPRNTTests {
  static let mac = "00:11:62:1D:9A:B7"
  static var templates: String { Tool.packageRoot.appendingPathComponent("Templates").path }

  /// A daemon with one CloudPRNT printer `till` (an mC-Print3), its archive in `work/archive`.
  static func daemon(confirmTimeout: Double = 120) throws -> (Daemon, URL) {
    let work = try Tool.temporaryDirectory()
    let config = work.appendingPathComponent("serve.json")
    try """
    {"printers": {"till": "cloudprnt:\(mac)"}, "printerModels": {"till": "star-mcprint3"},
     "printerCredentials": {"till": "till:s3cret-pass"}, "pollTimeout": 3, "confirmTimeout": \(confirmTimeout),
     "archive": "\(work.appendingPathComponent("archive").path)"}
    """.write(to: config, atomically: true, encoding: .utf8)
    let daemon = try Daemon(
      arguments: [
        "--config", config.path, "--db", work.appendingPathComponent("queue.sqlite").path, "--templates", templates,
        "--no-ipp",
      ],
      log: work.appendingPathComponent("serve.log"))
    try daemon.start()
    return (daemon, work)
  }

  /// The shipped example order with `number` and `items` items (lengths differ by item count).
  static func order(_ number: Int, items: Int) -> String {
    let lines = (0..<items).map {
      #"{"name": "Item \#($0)", "qty": 1, "price": "2.50", "total": "2.50", "modifiers": []}"#
    }
    return
      #"{"number": "\#(number)", "date": "2026-11-21T14:05:00Z", "locale": "en_US", "currency": "USD", "store": {"name": "Corner Café", "address": "12 Harbour Street", "city": "Portsmouth", "phone": "+44 23 9212 3456", "vat": "GB123456789"}, "cashier": "Anna", "items": [\#(lines.joined(separator: ","))], "discounts": [], "subtotal": "\#(items * 5 / 2)", "taxes": [], "tip": 0, "total": "\#(items * 5 / 2)", "payments": [{"method": "Cash", "amount": 100}], "change": "0", "table": "12", "server": "Ben", "url": "https://example.com/r/\#(number)"}"#
  }

  static func submit(_ daemon: Daemon, _ data: String) throws -> String {
    let response = try daemon.request(
      "POST", "/v1/jobs", body: Data(#"{"template": "receipt", "printer": "till", "data": \#(data)}"#.utf8))
    #expect(response.status == 202, "\(String(decoding: response.body, as: UTF8.self))")
    return response.json["id"] as? String ?? ""
  }

  static func job(_ daemon: Daemon, _ id: String) -> [String: Any] {
    (try? daemon.request("GET", "/v1/jobs/\(id)").json) ?? [:]
  }

  /// The preview's cut length in the printer's dots.
  static func previewDots(_ daemon: Daemon, _ data: String) throws -> Int {
    let response = try daemon.request(
      "POST", "/v1/render", body: Data(#"{"template": "receipt", "printer": "till", "data": \#(data)}"#.utf8),
      headers: ["Accept": "image/png"])
    return Int(response.headers["receipt-cut-length-dots"] ?? "") ?? -1
  }

  @Test func everyJobPrintsOnceInOrderAtThePreviewsLength() throws {
    let (daemon, _) = try Self.daemon()
    defer { _ = daemon.terminate() }
    let printer = try ThermalPrinterSimulator(model: .generic203(headDots: 576))
    let device = CloudPRNTDevice(mac: Self.mac, credentials: "till:s3cret-pass", port: daemon.port, printer: printer)
    let orders = [3, 9, 1, 6].enumerated().map { Self.order(100 + $0.offset, items: $0.element) }
    let ids = try orders.map { try Self.submit(daemon, $0) }
    let done = Flag()
    let thread = device.run(every: 0.1, seconds: 60) { done.isSet }
    defer {
      done.set()
      while thread.isExecuting { Thread.sleep(forTimeInterval: 0.05) }
    }
    #expect(waitUntil(seconds: 45) { ids.allSatisfy { Self.job(daemon, $0)["state"] as? String == "completed" } })
    let pages = printer.pages
    #expect(pages.count == 4, "one page per job, none twice: \(pages.count)")
    #expect(device.fetchedTokens.count == 4 && Set(device.fetchedTokens).count == 4, "\(device.fetchedTokens)")
    #expect(printer.refusedCommands.isEmpty, "\(printer.refusedCommands)")
    for (page, order) in zip(pages, orders) {
      let dots = try Self.previewDots(daemon, order)
      #expect(page.width == 576 && abs(page.rows.count - dots) <= 1, "\(page.rows.count) rows, the preview \(dots)")
      #expect(page.cut == "partial")
      let png = try daemon.request(
        "POST", "/v1/render?format=png",
        body: Data(#"{"template": "receipt", "printer": "till", "data": \#(order)}"#.utf8)
      ).body
      // The printable columns start 31.5 dots into the 80 mm paper at 203 dpi: the printed glyphs
      // sit half a dot from the preview's, and ~0.2 % of the dots (glyph edges at the 1-bit
      // threshold) differ. More than 0.5 % is a different receipt.
      let difference = try DotForDot.difference(page.rows, width: page.width, png: png, tolerance: 0.005)
      #expect(difference == nil, "dot for dot with the preview: \(difference ?? "")")
    }
    #expect(device.clientActions.isEmpty && device.errors.isEmpty, "\(device.errors)")
    let printers = try daemon.request("GET", "/v1/printers").json["printers"] as? [[String: Any]] ?? []
    #expect(printers.first?["state"] as? String == "idle" && printers.first?["lastPoll"] != nil, "\(printers)")
  }

  @Test func paperOutHoldsTheQueueAndNothingIsOffered() throws {
    let (daemon, _) = try Self.daemon()
    defer { _ = daemon.terminate() }
    let printer = try ThermalPrinterSimulator(model: .generic203(headDots: 576))
    let device = CloudPRNTDevice(mac: Self.mac, credentials: "till:s3cret-pass", port: daemon.port, printer: printer)
    device.report("410 Out of paper")
    device.pollOnce()
    let id = try Self.submit(daemon, Self.order(7, items: 2))
    for _ in 0..<15 {
      device.pollOnce()
      Thread.sleep(forTimeInterval: 0.2)
    }
    #expect(printer.pages.isEmpty && device.fetchedTokens.isEmpty, "nothing is offered to a printer out of paper")
    #expect(Self.job(daemon, id)["state"] as? String == "queued")
    #expect(Self.job(daemon, id)["attempts"] as? Int == 0, "holding uses up no attempt")
    let printers = try daemon.request("GET", "/v1/printers").json["printers"] as? [[String: Any]] ?? []
    #expect(printers.first?["state"] as? String == "stopped", "\(printers)")
    #expect((printers.first?["reasons"] as? [String] ?? []).contains("media-empty"), "\(printers)")
    device.report("200 OK")
    #expect(
      waitUntil(seconds: 20) {
        device.pollOnce()
        return Self.job(daemon, id)["state"] as? String == "completed"
      })
    #expect(printer.pages.count == 1)
  }

  @Test func aJobFetchedAndNeverConfirmedIsOfferedAgainAsAReprint() throws {
    let (daemon, work) = try Self.daemon(confirmTimeout: 2)
    defer { _ = daemon.terminate() }
    let printer = try ThermalPrinterSimulator(model: .generic203(headDots: 576))
    let device = CloudPRNTDevice(mac: Self.mac, credentials: "till:s3cret-pass", port: daemon.port, printer: printer)
    device.vanish(next: 1)
    let id = try Self.submit(daemon, Self.order(8, items: 2))
    #expect(
      waitUntil(seconds: 30) {
        device.pollOnce()
        return Self.job(daemon, id)["state"] as? String == "completed"
      })
    #expect(device.fetchedTokens.count == 2 && Set(device.fetchedTokens).count == 2, "a token per attempt")
    #expect(printer.pages.count == 1, "the vanished device printed nothing; the second fetch printed once")
    let archived = work.appendingPathComponent("archive/\(id).pdf")
    let text = try Tool.run("pdftotext", [archived.path, "-"]).stdout
    #expect(text.contains("REPRINT"), "what printed is marked as a reprint: \(text.prefix(300))")
  }

  /// `receipt print` cannot push to a printer that polls: exit 65 and what to do, not a CUPS hint.
  @Test func theCLISaysAPrinterThatPollsIsReachedThroughTheDaemon() throws {
    let order = Tool.packageRoot.appendingPathComponent("Templates/Examples/small.json").path
    for printer in ["cloudprnt:\(Self.mac)", "epson-sdp:bar-01"] {
      let result = try Tool.run(try Tool.shippedBinary(), ["print", order, "--printer", printer])
      #expect(result.status == 65, "\(printer): \(result.stderr)")
      #expect(result.stderr.contains("fetches its jobs from the daemon") && !result.stderr.contains("cupsenable"))
    }
  }

  /// A device that takes only `image/png` (Star's HI01X lists it) is offered a one-page receipt
  /// as a 1-bit PNG of the printable dots — the preview's dots — and prints it once.
  @Test func aDeviceThatTakesPNGGetsThePreviewsDots() throws {
    let (daemon, _) = try Self.daemon()
    defer { _ = daemon.terminate() }
    let printer = try ThermalPrinterSimulator(model: .generic203(headDots: 576))
    let device = CloudPRNTDevice(
      mac: Self.mac, credentials: "till:s3cret-pass", port: daemon.port, printer: printer, supported: ["image/png"])
    let order = Self.order(600, items: 3)
    let id = try Self.submit(daemon, order)
    #expect(
      waitUntil(seconds: 30) {
        device.pollOnce()
        return Self.job(daemon, id)["state"] as? String == "completed"
      })
    let png = try #require(device.pngs.first)
    #expect(device.pngs.count == 1 && printer.pages.isEmpty && device.errors.isEmpty)
    let file = try Tool.temporaryDirectory().appendingPathComponent("job.png")
    try png.write(to: file)
    let preview = try daemon.request(
      "POST", "/v1/render?format=png",
      body: Data(#"{"template": "receipt", "printer": "till", "data": \#(order)}"#.utf8)
    ).body
    let difference = try DotForDot.difference(page: file, png: preview, tolerance: 0.005)
    #expect(difference == nil, "\(difference ?? "")")
  }

  /// Two daemons on one PostgreSQL database, one device whose polls go to each in turn (a load
  /// balancer without stickiness): the daemon that drives the printer offers its jobs, the other
  /// answers `jobReady: false`; every job prints once, in order.
  @Test func twoDaemonsOnOnePostgreSQLPrintEveryJobOnceToADevicePollingBoth() throws {
    let database = try PostgresCluster.shared().createDatabase()
    let work = try Tool.temporaryDirectory()
    let config = work.appendingPathComponent("serve.json")
    try """
    {"printers": {"till": "cloudprnt:\(Self.mac)"}, "printerModels": {"till": "star-mcprint3"},
     "printerCredentials": {"till": "till:s3cret-pass"}, "pollTimeout": 5, "archiveDays": 0,
     "archive": "\(work.appendingPathComponent("receipt-archive").path)"}
    """.write(to: config, atomically: true, encoding: .utf8)
    let daemons = try (0..<2).map { i in
      try Daemon(
        arguments: ["--config", config.path, "--db", database, "--templates", Self.templates, "--no-ipp"],
        log: work.appendingPathComponent("serve-\(i).log"))
    }
    for daemon in daemons { try daemon.start() }
    defer { for daemon in daemons { _ = daemon.terminate() } }
    let printer = try ThermalPrinterSimulator(model: .generic203(headDots: 576))
    let devices = daemons.map {
      CloudPRNTDevice(mac: Self.mac, credentials: "till:s3cret-pass", port: $0.port, printer: printer)
    }
    let orders = (0..<6).map { Self.order(500 + $0, items: 1 + $0 % 3) }
    let ids = try orders.enumerated().map { try Self.submit(daemons[$0.offset % 2], $0.element) }
    var turn = 0
    #expect(
      waitUntil(seconds: 90) {
        devices[turn % 2].pollOnce()
        turn += 1
        return ids.allSatisfy { Self.job(daemons[0], $0)["state"] as? String == "completed" }
      })
    let tokens = devices.flatMap(\.fetchedTokens)
    #expect(printer.pages.count == 6 && tokens.count == 6 && Set(tokens).count == 6, "\(tokens)")
    #expect(printer.refusedCommands.isEmpty && devices.allSatisfy { $0.errors.isEmpty })
    for (page, order) in zip(printer.pages, orders) {
      let dots = try Self.previewDots(daemons[0], order)
      #expect(abs(page.rows.count - dots) <= 1, "printed in order: \(page.rows.count) rows, the preview \(dots)")
    }
  }

  @Test func aDeviceWithoutTheCredentialsGetsNothing() throws {
    let (daemon, _) = try Self.daemon()
    defer { _ = daemon.terminate() }
    let printer = try ThermalPrinterSimulator(model: .generic203(headDots: 576))
    let device = CloudPRNTDevice(mac: Self.mac, credentials: "till:s3cret-pass", port: daemon.port, printer: printer)
    let stranger = CloudPRNTDevice(
      mac: "00:11:62:00:00:01", credentials: "till:s3cret-pass", port: daemon.port, printer: printer)
    let id = try Self.submit(daemon, Self.order(9, items: 1))
    #expect(device.pollOnce(credentials: "till:wrong") == 401)
    #expect(device.pollOnce(credentials: "kitchen:s3cret-pass") == 401)
    #expect(stranger.pollOnce() == 401, "an unknown MAC address")
    let fetch = try RawHTTP.exchange(
      port: Int(daemon.port), "GET", "/cloudprnt?mac=00%3A11%3A62%3A1d%3A9a%3Ab7&type=application%2Fvnd.star.starprnt")
    #expect(fetch.status == 401, "no credentials")
    #expect(fetch.headers["www-authenticate"]?.contains("Basic realm=") == true, "\(fetch.headers)")
    Thread.sleep(forTimeInterval: 1)
    #expect(printer.pages.isEmpty && Self.job(daemon, id)["state"] as? String == "queued")
    #expect(
      waitUntil(seconds: 20) {
        device.pollOnce()
        return Self.job(daemon, id)["state"] as? String == "completed"
      }, "the printer with its credentials prints it")
  }
}

/// A flag set once, read from the device's thread.
private final class Flag: @unchecked Sendable {
  private let lock = NSLock()
  private var value = false
  var isSet: Bool { lock.withLock { value } }
  func set() { lock.withLock { value = true } }
}
