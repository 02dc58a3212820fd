import Foundation
import ReceiptTestSupport
import Testing

/// Epson Server Direct Print printers come to the shipped daemon: a device simulated from Epson's
/// manuals (``EpsonSDPDevice``: form-data requests, Digest authentication, ePOS-Print XML
/// `<image>`s decoded as the XML reference describes them) fetches and reports; every job prints
/// once, in order, at the preview's length; a paper-out result holds the queue and the job
/// prints when the paper is back; a job fetched and never reported is offered again marked as a
/// reprint; wrong credentials and unknown IDs get nothing.
@Suite(.serialized) struct EpsonSDPTests {
  static var templates: String { Tool.packageRoot.appendingPathComponent("Templates").path }

  static func daemon(confirmTimeout: Double = 120, pollTimeout: Double = 3) throws -> (Daemon, URL) {
    let work = try Tool.temporaryDirectory()
    let config = work.appendingPathComponent("serve.json")
    try """
    {"printers": {"bar": "epson-sdp:bar-01"}, "printerModels": {"bar": "epson-tm-m30iii"},
     "printerCredentials": {"bar": "bar:s3cret-pass"}, "pollTimeout": \(pollTimeout), "confirmTimeout": \(confirmTimeout),
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

  static func submit(_ daemon: Daemon, _ data: String) throws -> String {
    let response = try daemon.request(
      "POST", "/v1/jobs", body: Data(#"{"template": "receipt", "printer": "bar", "data": \#(data)}"#.utf8))
    #expect(response.status == 202, "\(String(decoding: response.body, as: UTF8.self))")
    return response.json["id"] as? String ?? ""
  }

  static func state(_ daemon: Daemon, _ id: String) -> String? {
    (try? daemon.request("GET", "/v1/jobs/\(id)").json)?["state"] as? String
  }

  static func printerState(_ daemon: Daemon) -> [String: Any] {
    ((try? daemon.request("GET", "/v1/printers").json["printers"]) as? [[String: Any]])?.first ?? [:]
  }

  @Test func everyJobPrintsOnceInOrderAtThePreviewsLength() throws {
    let (daemon, _) = try Self.daemon()
    defer { _ = daemon.terminate() }
    let device = EpsonSDPDevice(id: "bar-01", credentials: "bar:s3cret-pass", port: daemon.port)
    let orders = [4, 1, 7].enumerated().map { CloudPRNTTests.order(300 + $0.offset, items: $0.element) }
    let ids = try orders.map { try Self.submit(daemon, $0) }
    #expect(
      waitUntil(seconds: 45) {
        device.pollOnce()
        return ids.allSatisfy { Self.state(daemon, $0) == "completed" }
      })
    let pages = device.pages
    #expect(pages.count == 3 && device.fetchedJobIDs.count == 3 && Set(device.fetchedJobIDs).count == 3)
    #expect(device.errors.isEmpty, "\(device.errors)")
    for (page, order) in zip(pages, orders) {
      let response = try daemon.request(
        "POST", "/v1/render", body: Data(#"{"template": "receipt", "printer": "bar", "data": \#(order)}"#.utf8))
      let dots = Int(response.headers["receipt-cut-length-dots"] ?? "") ?? -1
      #expect(page.width == 576 && abs(page.rows.count - dots) <= 1, "\(page.rows.count) rows, the preview \(dots)")
      #expect(page.cut && page.rows.contains { $0.contains(true) }, "printed and cut")
      let png = try daemon.request(
        "POST", "/v1/render?format=png",
        body: Data(#"{"template": "receipt", "printer": "bar", "data": \#(order)}"#.utf8)
      ).body
      // The printable columns start 31.5 dots into the 80 mm paper at 203 dpi: the printed glyphs
      // sit half a dot from the preview's, and ~0.2 % of the dots (glyph edges at the 1-bit
      // threshold) differ. More than 0.5 % is a different receipt.
      let difference = try DotForDot.difference(page.rows, width: page.width, png: png, tolerance: 0.005)
      #expect(difference == nil, "dot for dot with the preview: \(difference ?? "")")
    }
    device.pollOnce()
    #expect(Self.printerState(daemon)["state"] as? String == "idle")
  }

  @Test func aPaperOutResultHoldsTheQueueAndTheJobPrintsWhenThePaperIsBack() throws {
    let (daemon, _) = try Self.daemon()
    defer { _ = daemon.terminate() }
    let device = EpsonSDPDevice(id: "bar-01", credentials: "bar:s3cret-pass", port: daemon.port)
    device.outOfPaper(true)
    let id = try Self.submit(daemon, CloudPRNTTests.order(401, items: 2))
    #expect(
      waitUntil(seconds: 20) {
        device.pollOnce()
        return device.fetchedJobIDs.count == 1
      })
    #expect(waitUntil(seconds: 10) { Self.state(daemon, id) == "queued" })
    let printer = Self.printerState(daemon)
    #expect(printer["state"] as? String == "stopped", "\(printer)")
    #expect((printer["reasons"] as? [String] ?? []).contains("media-empty"), "\(printer)")
    for _ in 0..<5 {
      device.pollOnce()
      Thread.sleep(forTimeInterval: 0.2)
    }
    #expect(device.fetchedJobIDs.count == 1, "nothing offered while the printer said it has no paper")
    device.outOfPaper(false)
    #expect(
      waitUntil(seconds: 30) {
        device.pollOnce()
        return Self.state(daemon, id) == "completed"
      })
    #expect(device.pages.count == 1)
  }

  @Test func aJobFetchedAndNeverReportedIsOfferedAgainAsAReprint() throws {
    let (daemon, work) = try Self.daemon(confirmTimeout: 2)
    defer { _ = daemon.terminate() }
    let device = EpsonSDPDevice(id: "bar-01", credentials: "bar:s3cret-pass", port: daemon.port)
    device.vanish(next: 1)
    let id = try Self.submit(daemon, CloudPRNTTests.order(402, items: 2))
    #expect(
      waitUntil(seconds: 30) {
        device.pollOnce()
        return Self.state(daemon, id) == "completed"
      })
    #expect(device.fetchedJobIDs.count == 2 && Set(device.fetchedJobIDs).count == 2, "a job ID per attempt")
    #expect(device.pages.count == 1)
    let text = try Tool.run("pdftotext", [work.appendingPathComponent("archive/\(id).pdf").path, "-"]).stdout
    #expect(text.contains("REPRINT"), "\(text.prefix(200))")
  }

  @Test func wrongCredentialsAndUnknownIDsGetNothing() throws {
    let (daemon, _) = try Self.daemon()
    defer { _ = daemon.terminate() }
    let device = EpsonSDPDevice(id: "bar-01", credentials: "bar:s3cret-pass", port: daemon.port)
    let stranger = EpsonSDPDevice(id: "bar-02", credentials: "bar:s3cret-pass", port: daemon.port)
    let id = try Self.submit(daemon, CloudPRNTTests.order(403, items: 1))
    #expect(device.pollOnce(password: "wrong") == 401)
    #expect(stranger.pollOnce() == 401)
    let basic = Data("bar:wrong".utf8).base64EncodedString()
    let raw = try RawHTTP.exchange(
      port: Int(daemon.port), "POST", "/epson-sdp",
      headers: ["Content-Type": "application/x-www-form-urlencoded", "Authorization": "Basic \(basic)"],
      body: Data("ConnectionType=GetRequest&ID=bar-01".utf8))
    #expect(raw.status == 401 && raw.body.count < 200)
    Thread.sleep(forTimeInterval: 1)
    #expect(device.pages.isEmpty && stranger.pages.isEmpty && Self.state(daemon, id) == "queued")
    #expect(
      waitUntil(seconds: 20) {
        device.pollOnce()
        return Self.state(daemon, id) == "completed"
      }, "with its credentials (Digest) it prints")
  }
}
