import Foundation
import ReceiptTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Crashes are blamed only on the job whose own work was in progress, and a stop keeps its
/// grace even while a raw printer holds a receipt unconfirmed — on the shipped daemon, with the
/// thermal printer simulator as a TM-T88V (it confirms prints).
@Suite(.serialized) struct CrashAccountingTests {
  var templates: String { Tool.packageRoot.appendingPathComponent("Templates").path }

  /// A daemon with `printer` (`socket://…` as a TM-T88V, or `dir:…`) on a fresh queue and a copy
  /// of the templates.
  func daemon(printer: String, settings: String = "") throws -> (Daemon, URL) {
    let work = try Tool.temporaryDirectory()
    let copy = work.appendingPathComponent("templates")
    try FileManager.default.copyItem(atPath: templates, toPath: copy.path)
    let config = work.appendingPathComponent("serve.json")
    try """
    {"database": "\(work.appendingPathComponent("queue.sqlite").path)", "templates": "\(copy.path)",
     "printers": {"till": "\(printer)"}, "printerModels": {"till": "epson-tm-t88v"}\(settings)}
    """.write(to: config, atomically: true, encoding: .utf8)
    let daemon = try Daemon(arguments: ["--config", config.path], log: work.appendingPathComponent("serve.log"))
    try daemon.start()
    return (daemon, work)
  }

  func submit(_ daemon: Daemon, template: String = "receipt", data: String) throws -> String {
    let answer = try daemon.request(
      "POST", "/v1/jobs", body: Data(#"{"template": "\#(template)", "data": \#(data)}"#.utf8), timeout: 30)
    #expect(answer.status == 202, "\(String(decoding: answer.body, as: UTF8.self))")
    return try #require(answer.json["id"] as? String)
  }

  func job(_ daemon: Daemon, _ id: String) -> [String: Any] {
    (try? daemon.request("GET", "/v1/jobs/\(id)", timeout: 5).json) ?? [:]
  }

  var smallOrder: String {
    (try? String(contentsOfFile: "\(templates)/Examples/small.json", encoding: .utf8)) ?? "{}"
  }

  /// Three `kill -9` (a power cut, the OOM killer) while a healthy receipt waits for its printer:
  /// not its fault, so it is not dead; it prints once the printer keeps up, marked as a reprint.
  @Test func killsWhileAJobWaitsOnItsPrinterDoNotKillIt() throws {
    let simulator = try ThermalPrinterSimulator(model: .epsonTMT88)
    simulator.printSlowly(rowsPerSecond: 60)  // about 15 s a receipt: it waits for its confirmation
    let (daemon, _) = try daemon(printer: "socket://127.0.0.1:\(simulator.port)")
    defer { _ = daemon.terminate() }
    let id = try submit(daemon, data: smallOrder)
    for kill in 1...3 {
      let waiting = waitUntil(seconds: 60, poll: 0.05) {
        let job = self.job(daemon, id)
        return job["state"] as? String == "printing" && job["stage"] as? String == "printer"
      }
      #expect(waiting, "before kill \(kill): \(job(daemon, id))")
      daemon.kill9()
      try daemon.start()
      let after = job(daemon, id)
      #expect(after["state"] as? String != "dead" && after["crashes"] == nil, "after kill \(kill): \(after)")
    }
    simulator.printSlowly(rowsPerSecond: nil)
    #expect(
      waitUntil(seconds: 60, poll: 0.1) { job(daemon, id)["state"] as? String == "completed" }, "\(job(daemon, id))")
    let done = job(daemon, id)
    #expect((done["interruptions"] as? Int ?? 0) >= 3, "printed again, marked as a reprint: \(done)")
    #expect(done["crashes"] == nil)
  }

  /// Three crashes (SIGSEGV) while the daemon renders one job — 3,000 pages, its own work — make
  /// that job dead, so it cannot stop its printer's queue for ever; the next job prints.
  @Test func crashesInsideItsOwnRenderKillIt() throws {
    let work = try Tool.temporaryDirectory()
    let (daemon, dir) = try daemon(printer: "dir:\(work.path)")
    defer { _ = daemon.terminate() }
    try #"<receipt><repeat items="$items" as="i"><text>Page ${i.n}</text><cut/></repeat></receipt>"#.write(
      to: dir.appendingPathComponent("templates/pages.xml"), atomically: true, encoding: .utf8)
    let items = "[" + (0..<3000).map { #"{"n": \#($0)}"# }.joined(separator: ",") + "]"
    let id = try submit(daemon, template: "pages", data: #"{"items": \#(items)}"#)
    let next = try submit(daemon, data: smallOrder)
    for crash in 1...3 {
      let rendering = waitUntil(seconds: 60, poll: 0.01) { job(daemon, id)["stage"] as? String == "rendering" }
      #expect(rendering, "before crash \(crash): \(job(daemon, id))")
      daemon.crash(with: SIGSEGV)
      try daemon.start()
    }
    let dead = job(daemon, id)
    #expect(dead["state"] as? String == "dead", "\(dead)")
    #expect((dead["error"] as? String)?.contains("stopped 3 times while rendering this job") == true, "\(dead)")
    #expect(dead["crashes"] as? Int == 3)
    #expect(waitUntil(seconds: 60, poll: 0.1) { job(daemon, next)["state"] as? String == "completed" })
  }

  /// SIGTERM while a raw printer has not confirmed a receipt: the daemon ends within
  /// `shutdownGrace` + 2 s, and the job is not marked printed — it prints again after the restart,
  /// marked as a reprint.
  @Test func aStopKeepsItsGraceWithAnUnconfirmedPrint() throws {
    let simulator = try ThermalPrinterSimulator(model: .epsonTMT88)
    simulator.printSlowly(rowsPerSecond: 10)  // minutes a receipt
    let (daemon, work) = try daemon(
      printer: "socket://127.0.0.1:\(simulator.port)", settings: #", "shutdownGrace": 2"#)
    let id = try submit(daemon, data: smallOrder)
    #expect(waitUntil(seconds: 60, poll: 0.05) { job(daemon, id)["stage"] as? String == "printer" })
    // The receipt's bytes reached the printer: the daemon waits for its confirmation.
    #expect(waitUntil(seconds: 30, poll: 0.05) { !simulator.pages.isEmpty })
    let started = Date()
    let status = daemon.terminate(seconds: 30)
    let took = Date().timeIntervalSince(started)
    #expect(status == 0, "exit status \(String(describing: status))")
    // The stop logs its start, each part that ended a second or more into it, and its length:
    // a stop over its time says which part held it up.
    let log = (try? String(contentsOf: work.appendingPathComponent("serve.log"), encoding: .utf8)) ?? ""
    #expect(took <= 2 + 2, "SIGTERM took \(took) s with shutdownGrace 2; the daemon's log:\n\(log)")
    #expect(log.contains("stopping: the listeners first, then the printers' jobs in hand within 2 s"), "\(log)")
    let total = log.firstMatch(of: /stopped in (\d+) ms/).flatMap { Int($0.1) }
    #expect(total.map { (2000...4000).contains($0) } == true, "the stop's own count: \(log)")
    // The worker gave its job the whole grace, and the stop says when it ended.
    let worker = log.firstMatch(of: /stopped the worker of printer till, (\d+) ms/).flatMap { Int($0.1) }
    #expect(worker.map { $0 >= 2000 } == true, "the worker's end: \(log)")
    simulator.printSlowly(rowsPerSecond: nil)
    try daemon.start()
    defer { _ = daemon.terminate() }
    #expect(
      waitUntil(seconds: 60, poll: 0.1) { job(daemon, id)["state"] as? String == "completed" }, "\(job(daemon, id))")
    #expect((job(daemon, id)["interruptions"] as? Int ?? 0) >= 1, "\(job(daemon, id))")
  }
}
