import Foundation
import ReceiptTestSupport
import Testing

/// One order, every ticket, through the shipped daemon: routes split a restaurant order into a
/// counter receipt, a kitchen and a bar ticket at three directory printers (checked with
/// pdftotext); a ticket whose printer is out of paper or unreachable prints at its fallback
/// with the banner, once; a reprint is a new job marked as a copy; every printed job's archived
/// PDF matches the SHA-256 recorded for it.
@Suite(.serialized) struct OrderRoutingTests {
  static var templates: String { Tool.packageRoot.appendingPathComponent("Templates").path }

  static var restaurantOrder: String {
    (try? String(contentsOfFile: "\(templates)/Examples/restaurant.json", encoding: .utf8)) ?? "{}"
  }

  /// A daemon whose configuration file has `printers` (name → target) and `routes`, started.
  static func daemon(printers: [String: String], routes: String, extra: String = "") throws -> (Daemon, URL) {
    let work = try Tool.temporaryDirectory()
    let printerJSON = printers.map { "\"\($0.key)\": \"\($0.value)\"" }.joined(separator: ", ")
    let config = work.appendingPathComponent("serve.json")
    try #"{"printers": {\#(printerJSON)}, "routes": \#(routes)\#(extra)}"#.write(
      to: config, atomically: true, encoding: .utf8)
    let daemon = try Daemon(
      arguments: [
        "--config", config.path, "--db", work.appendingPathComponent("queue.sqlite").path, "--templates", templates,
      ],
      log: work.appendingPathComponent("serve.log"))
    try daemon.start()
    return (daemon, work)
  }

  static let restaurantRoutes = """
    [{"name": "counter", "printer": "counter", "template": "receipt"},
     {"name": "kitchen", "printer": "kitchen", "template": "kitchen", "filter": "station == 'kitchen'", "fallback": "counter"},
     {"name": "bar", "printer": "bar", "template": "kitchen", "filter": "station == 'bar'", "fallback": "counter"}]
    """

  static func directories(_ names: [String]) throws -> [String: URL] {
    let base = try Tool.temporaryDirectory()
    var result: [String: URL] = [:]
    for name in names {
      result[name] = base.appendingPathComponent(name)
      try FileManager.default.createDirectory(at: result[name]!, withIntermediateDirectories: true)
    }
    return result
  }

  static func pdfs(_ directory: URL) -> [URL] {
    ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { $0.hasSuffix(".pdf") }
      .sorted().map { directory.appendingPathComponent($0) }
  }

  static func text(_ pdf: URL) throws -> String { try Tool.run("pdftotext", [pdf.path, "-"]).stdout }

  static func orderState(_ daemon: Daemon, _ id: String) -> [String: Any] {
    (try? daemon.request("GET", "/v1/orders/\(id)").json) ?? [:]
  }

  @Test func anOrderPrintsOneTicketPerStationWithItsOwnItems() throws {
    let dirs = try Self.directories(["counter", "kitchen", "bar"])
    let (daemon, _) = try Self.daemon(
      printers: dirs.mapValues { "dir:\($0.path)" }, routes: Self.restaurantRoutes)
    defer { _ = daemon.terminate() }
    let body = Data(#"{"data": \#(Self.restaurantOrder)}"#.utf8)
    let response = try daemon.request("POST", "/v1/orders", body: body, headers: ["Idempotency-Key": "table-7"])
    #expect(response.status == 202, "\(String(decoding: response.body, as: UTF8.self))")
    let id = try #require(response.json["id"] as? String)
    let tickets = try #require(response.json["tickets"] as? [[String: Any]])
    #expect(tickets.map { $0["route"] as? String } == ["counter", "kitchen", "bar"])
    #expect(waitUntil(seconds: 30) { Self.orderState(daemon, id)["state"] as? String == "completed" })
    for name in ["counter", "kitchen", "bar"] {
      #expect(Self.pdfs(dirs[name]!).count == 1, "\(name) got one document")
    }
    let kitchen = try Self.text(try #require(Self.pdfs(dirs["kitchen"]!).first))
    let bar = try Self.text(try #require(Self.pdfs(dirs["bar"]!).first))
    let receipt = try Self.text(try #require(Self.pdfs(dirs["counter"]!).first))
    let food = ["Fish and chips", "Caesar salad"]
    let drinks = ["Pale ale 0.5 l", "Lemonade"]
    for item in food {
      #expect(kitchen.contains(item) && !bar.contains(item) && receipt.contains(item), "\(item)")
    }
    for item in drinks {
      #expect(bar.contains(item) && !kitchen.contains(item) && receipt.contains(item), "\(item)")
    }
    #expect(kitchen.contains("KITCHEN T-2031") && bar.contains("BAR T-2031"), "each ticket is headed with its label")
    #expect(!kitchen.contains("52.80") && receipt.contains("52.80"), "the receipt has the total, tickets no prices")

    // The same key: the same order; a different order under it: 409.
    let again = try daemon.request("POST", "/v1/orders", body: body, headers: ["Idempotency-Key": "table-7"])
    #expect(again.status == 200 && again.json["id"] as? String == id)
    let other = Data(#"{"data": \#(Self.restaurantOrder.replacingOccurrences(of: "T-2031", with: "T-2032"))}"#.utf8)
    #expect(
      try daemon.request("POST", "/v1/orders", body: other, headers: ["Idempotency-Key": "table-7"]).status == 409)
    #expect(Self.pdfs(dirs["kitchen"]!).count == 1, "a retried order prints nothing again")

    // Only drinks: one bar ticket and the receipt; no empty kitchen ticket.
    let drinksOnly =
      #"{"number": "T-2040", "items": [{"name": "Lemonade", "qty": 1, "station": "bar", "total": "3.60"}], "total": "3.60"}"#
    let second = try daemon.request("POST", "/v1/orders", body: Data(#"{"data": \#(drinksOnly)}"#.utf8))
    #expect(second.status == 202)
    #expect((second.json["tickets"] as? [[String: Any]])?.map { $0["route"] as? String } == ["counter", "bar"])
    // Routes asked by name, an unknown route, and an order no route prints.
    let onlyBar = try daemon.request(
      "POST", "/v1/orders", body: Data(#"{"data": \#(drinksOnly), "routes": ["bar"]}"#.utf8))
    #expect((onlyBar.json["tickets"] as? [[String: Any]])?.count == 1)
    let unknown = try daemon.request(
      "POST", "/v1/orders", body: Data(#"{"data": \#(drinksOnly), "routes": ["terrace"]}"#.utf8))
    #expect(unknown.status == 422 && unknown.json["field"] as? String == "routes")
    let nothing = try daemon.request(
      "POST", "/v1/orders", body: Data(#"{"data": {"items": []}, "routes": ["kitchen"]}"#.utf8))
    #expect(nothing.status == 422, "\(String(decoding: nothing.body, as: UTF8.self))")
  }

  @Test func aReprintIsANewJobMarkedAsACopyAndEveryArchiveMatchesItsHash() throws {
    let dirs = try Self.directories(["counter", "kitchen", "bar"])
    // "unplugged": a socket printer nobody listens on (port 1 refuses): its jobs stay queued.
    var printers = dirs.mapValues { "dir:\($0.path)" }
    printers["unplugged"] = "socket://127.0.0.1:1"
    let (daemon, work) = try Self.daemon(printers: printers, routes: Self.restaurantRoutes)
    defer { _ = daemon.terminate() }
    let response = try daemon.request("POST", "/v1/orders", body: Data(#"{"data": \#(Self.restaurantOrder)}"#.utf8))
    let id = try #require(response.json["id"] as? String)
    #expect(waitUntil(seconds: 30) { Self.orderState(daemon, id)["state"] as? String == "completed" })
    let receiptJob = try #require((response.json["tickets"] as? [[String: Any]])?.first?["id"] as? String)

    let reprint = try daemon.request("POST", "/v1/jobs/\(receiptJob)/reprint", headers: ["Idempotency-Key": "r-1"])
    #expect(reprint.status == 202)
    let copyID = try #require(reprint.json["id"] as? String)
    #expect(
      copyID != receiptJob && reprint.json["reprint"] as? Int == 1 && reprint.json["reprintOf"] as? String == receiptJob
    )
    let same = try daemon.request("POST", "/v1/jobs/\(receiptJob)/reprint", headers: ["Idempotency-Key": "r-1"])
    #expect(same.status == 200 && same.json["id"] as? String == copyID, "the key returns the same reprint")
    #expect(
      waitUntil(seconds: 30) {
        (try? daemon.request("GET", "/v1/jobs/\(copyID)").json["state"]) as? String == "completed"
      })
    let second = try daemon.request("POST", "/v1/jobs/\(copyID)/reprint")
    #expect(
      second.json["reprint"] as? Int == 2 && second.json["reprintOf"] as? String == receiptJob, "numbered per original")
    #expect(waitUntil(seconds: 30) { Self.pdfs(dirs["counter"]!).count == 3 })
    let texts = try Self.pdfs(dirs["counter"]!).map(Self.text)
    #expect(!texts[0].contains("COPY"), "the original is unchanged")
    #expect(texts[1].contains("COPY 1") && texts[2].contains("COPY 2"), "\(texts[1].prefix(200))")
    let original = try daemon.request("GET", "/v1/jobs/\(receiptJob)")
    #expect(original.json["reprint"] == nil && original.json["state"] as? String == "completed")
    let waiting = try daemon.request(
      "POST", "/v1/jobs",
      body: Data(#"{"template": "receipt", "printer": "unplugged", "data": \#(Self.restaurantOrder)}"#.utf8))
    let waitingID = try #require(waiting.json["id"] as? String)
    let queued = try daemon.request("POST", "/v1/jobs/\(waitingID)/reprint")
    #expect(queued.status == 409, "a reprint of a job not yet printed is refused: \(queued.status)")
    #expect((queued.json["detail"] as? String)?.contains("only printed (completed) jobs are reprinted") == true)

    // The archive: every printed job's document is served, its bytes hash (sha256sum) to the
    // recorded SHA-256; a changed file is refused.
    let jobs = try #require(
      try daemon.request("GET", "/v1/jobs?state=completed&limit=100").json["jobs"] as? [[String: Any]])
    #expect(jobs.count >= 5)
    for job in jobs {
      let jobID = try #require(job["id"] as? String)
      let hash = try #require(job["documentSha256"] as? String, "\(jobID) has a hash")
      let document = try daemon.request("GET", "/v1/jobs/\(jobID)/document.pdf")
      #expect(document.status == 200 && document.headers["content-type"] == "application/pdf")
      let independent = try Tool.run("sha256sum", ["-"], stdin: document.body).stdout.prefix(64)
      #expect(String(independent) == hash, "\(jobID)")
      #expect(document.body.starts(with: Data("%PDF".utf8)))
    }
    let archived = work.appendingPathComponent("queue-archive/\(receiptJob).pdf")
    #expect(try Self.text(archived).contains("Fish and chips"), "the archive is the receipt as printed")
    try Data("%PDF-1.5 tampered".utf8).write(to: archived)
    #expect(
      try daemon.request("GET", "/v1/jobs/\(receiptJob)/document.pdf").status == 500, "a changed archive is refused")
    try FileManager.default.removeItem(at: archived)
    #expect(try daemon.request("GET", "/v1/jobs/\(receiptJob)/document.pdf").status == 410)
  }

  @Test func ticketsOfAStuckPrinterPrintAtTheFallbackOnceWithTheBanner() throws {
    let dirs = try Self.directories(["counter"])
    let kitchen = try ThermalPrinterSimulator()
    kitchen.set(paperEnd: true)
    // The bar printer: the discard port on loopback, where nothing listens (tests bind
    // ephemeral ports only): every connection is refused.
    let barPort = 9
    let (daemon, _) = try Self.daemon(
      printers: [
        "counter": "dir:\(dirs["counter"]!.path)", "kitchen": "socket://127.0.0.1:\(kitchen.port)",
        "bar": "socket://127.0.0.1:\(barPort)",
      ],
      routes: Self.restaurantRoutes, extra: #", "failoverAfter": 1"#)
    defer { _ = daemon.terminate() }
    let response = try daemon.request("POST", "/v1/orders", body: Data(#"{"data": \#(Self.restaurantOrder)}"#.utf8))
    let id = try #require(response.json["id"] as? String)
    #expect(waitUntil(seconds: 30) { Self.orderState(daemon, id)["state"] as? String == "completed" })
    let tickets = try #require(Self.orderState(daemon, id)["tickets"] as? [[String: Any]])
    for (ticket, meant) in zip(tickets.dropFirst(), ["kitchen", "bar"]) {
      #expect(ticket["printer"] as? String == "counter" && ticket["fallbackFor"] as? String == meant)
      #expect((ticket["failoverReason"] as? String)?.isEmpty == false)
    }
    let texts = try Self.pdfs(dirs["counter"]!).map(Self.text)
    #expect(texts.count == 3)
    #expect(texts.contains { $0.contains("FOR KITCHEN") && $0.contains("Fish and chips") })
    #expect(texts.contains { $0.contains("FOR BAR") && $0.contains("Lemonade") })
    #expect(kitchen.jobs.isEmpty, "nothing was sent into the printer without paper")

    // Paper back: the next order's kitchen ticket prints in the kitchen; the first one is not
    // printed there again.
    kitchen.set(paperEnd: false)
    let next = try daemon.request(
      "POST", "/v1/orders",
      body: Data(
        #"{"data": \#(Self.restaurantOrder.replacingOccurrences(of: "T-2031", with: "T-2050")), "routes": ["kitchen"]}"#
          .utf8))
    let nextID = try #require(next.json["id"] as? String)
    #expect(waitUntil(seconds: 30) { Self.orderState(daemon, nextID)["state"] as? String == "completed" })
    #expect(kitchen.jobs.count == 1, "only the new ticket reached the kitchen")
    let nextTicket = (Self.orderState(daemon, nextID)["tickets"] as? [[String: Any]])?.first
    #expect(nextTicket?["printer"] as? String == "kitchen" && nextTicket?["fallbackFor"] == nil)
    #expect(Self.pdfs(dirs["counter"]!).count == 3, "nothing more at the fallback")
    let metrics = String(decoding: try daemon.request("GET", "/metrics").body, as: UTF8.self)
    #expect(metrics.contains(#"receipt_route_tickets_failed_over_total{route="kitchen"} 1"#), "\(metrics)")
  }

  @Test func theCLIPrintsEveryTicketOfTheRoutesFile() throws {
    let dirs = try Self.directories(["counter", "kitchen", "bar"])
    let work = try Tool.temporaryDirectory()
    let config = work.appendingPathComponent("routes.json")
    let printers = dirs.map { "\"\($0.key)\": \"dir:\($0.value.path)\"" }.joined(separator: ", ")
    try #"{"printers": {\#(printers)}, "routes": \#(Self.restaurantRoutes)}"#.write(
      to: config, atomically: true, encoding: .utf8)
    let order = "\(Self.templates)/Examples/restaurant.json"
    let result = try Tool.run(
      try Tool.shippedBinary(), ["print", order, "--routes", config.path, "--templates", Self.templates])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.split(separator: "\n").map { $0.prefix { $0 != ":" } } == ["counter", "kitchen", "bar"])
    #expect(try Self.text(try #require(Self.pdfs(dirs["bar"]!).first)).contains("Pale ale"))
    #expect(!(try Self.text(try #require(Self.pdfs(dirs["bar"]!).first)).contains("Fish and chips")))
    // A route with a broken filter: exit 65 and where the mistake is.
    try
      #"{"printers": {\#(printers)}, "routes": [{"name": "kitchen", "printer": "kitchen", "template": "kitchen", "filter": "station =="}]}"#
      .write(to: config, atomically: true, encoding: .utf8)
    let bad = try Tool.run(
      try Tool.shippedBinary(), ["print", order, "--routes", config.path, "--templates", Self.templates])
    #expect(
      bad.status == 65 && bad.stderr.contains("route 'kitchen'") && bad.stderr.contains("column"), "\(bad.stderr)")
  }

  /// A ticket that cannot print is reported with its route's name, the others still print, and
  /// the exit code is the first failure's: the kitchen's printer refuses the connection (69)
  /// before the bar's directory cannot be written (73).
  @Test func theCLIReportsAFailedTicketByRouteAndPrintsTheOthers() throws {
    let dirs = try Self.directories(["counter"])
    let work = try Tool.temporaryDirectory()
    let config = work.appendingPathComponent("routes.json")
    let blocked = work.appendingPathComponent("not-a-directory")
    try Data("a file".utf8).write(to: blocked)
    try #"""
    {"printers": {"counter": "dir:\#(dirs["counter"]!.path)", "kitchen": "socket://127.0.0.1:1",
                  "bar": "dir:\#(blocked.path)/bar"},
     "routes": \#(Self.restaurantRoutes)}
    """#.write(to: config, atomically: true, encoding: .utf8)
    let order = "\(Self.templates)/Examples/restaurant.json"
    let result = try Tool.run(
      try Tool.shippedBinary(), ["print", order, "--routes", config.path, "--templates", Self.templates])
    #expect(result.status == 69, "the first failure's code: \(result.status) \(result.stderr)")
    // One line per failed ticket, by route, in the routes' order; then the first failure again.
    let errors = result.stderr.split(separator: "\n")
    #expect(errors.count == 3, "\(result.stderr)")
    #expect(errors.first?.hasPrefix("receipt: kitchen: cannot connect to printer 127.0.0.1:1") == true)
    #expect(errors.dropFirst().first?.hasPrefix("receipt: bar: cannot write") == true)
    #expect(errors.last?.hasPrefix("receipt: error: cannot connect to printer 127.0.0.1:1") == true)
    #expect(result.stdout.hasPrefix("counter: "), "\(result.stdout)")
    #expect(Self.pdfs(dirs["counter"]!).count == 1, "the counter's ticket printed")
  }
}
