import Foundation
import ReceiptTestSupport
import Testing

/// The archive as the README promises it, on the shipped daemon: each printed job's PDF is served
/// with its digest in `Repr-Digest` (RFC 9530, checked with openssl), documents past `archiveDays`
/// are removed (at start and hourly) and answer `410`, and `archiveDays: 0` keeps none.
@Suite(.timeLimit(.minutes(3))) struct ArchiveTests {
  static let templates = Tool.packageRoot.appendingPathComponent("Templates").path

  func daemon(_ work: URL, archiveDays: Int?) throws -> Daemon {
    let config = work.appendingPathComponent("serve.json")
    let printers = work.appendingPathComponent("printed")
    try FileManager.default.createDirectory(at: printers, withIntermediateDirectories: true)
    let days = archiveDays.map { #", "archiveDays": \#($0)"# } ?? ""
    try #"{"printers": {"counter": "dir:\#(printers.path)"}\#(days)}"#.write(
      to: config, atomically: true, encoding: .utf8)
    return try Daemon(
      arguments: [
        "--config", config.path, "--db", work.appendingPathComponent("queue.sqlite").path, "--templates",
        Self.templates,
      ], log: work.appendingPathComponent("serve.log"))
  }

  func printed(_ daemon: Daemon, _ count: Int) throws -> [String] {
    let order = try String(contentsOfFile: "\(Self.templates)/Examples/small.json", encoding: .utf8)
    let ids = try (0..<count).map { _ in
      let response = try daemon.request(
        "POST", "/v1/jobs", body: Data(#"{"template": "receipt", "data": \#(order)}"#.utf8))
      return try #require(response.json["id"] as? String)
    }
    let done = waitUntil(seconds: 60) {
      ids.allSatisfy { (try? daemon.request("GET", "/v1/jobs/\($0)").json["state"] as? String) == "completed" }
    }
    try #require(done, "printed")
    return ids
  }

  @Test func documentsCarryTheirDigestAndExpireAfterArchiveDays() throws {
    let work = try Tool.temporaryDirectory()
    let daemon = try daemon(work, archiveDays: nil)  // the default, 30 days
    try daemon.start()
    defer { _ = daemon.terminate() }
    let ids = try printed(daemon, 2)
    let document = try daemon.request("GET", "/v1/jobs/\(ids[0])/document.pdf")
    #expect(document.status == 200)
    let file = work.appendingPathComponent("queue-archive/\(ids[0]).pdf")
    try document.body.write(to: work.appendingPathComponent("served.pdf"))
    let digest = try Tool.run(
      "sh", ["-c", "openssl dgst -sha256 -binary \(work.appendingPathComponent("served.pdf").path) | base64"]
    ).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(document.headers["repr-digest"] == "sha-256=:\(digest):", "\(document.headers)")
    #expect(try Data(contentsOf: file) == document.body)
    // The archived document keeps the template's title and metadata, as a preview of the same
    // order does (poppler reads both).
    let order = try String(contentsOfFile: "\(Self.templates)/Examples/small.json", encoding: .utf8)
    let preview = try daemon.request(
      "POST", "/v1/render?format=pdf", body: Data(#"{"template": "receipt", "data": \#(order)}"#.utf8))
    try preview.body.write(to: work.appendingPathComponent("preview.pdf"))
    func info(_ name: String) throws -> [String] {
      try Tool.run("pdfinfo", [work.appendingPathComponent(name).path]).stdout.split(separator: "\n")
        .filter { $0.hasPrefix("Title:") || $0.hasPrefix("Creator:") || $0.hasPrefix("Producer:") }.map(String.init)
    }
    let archived = try info("served.pdf")
    #expect(archived.contains { $0.hasPrefix("Title:") && $0.contains("Receipt ") }, "\(archived)")
    #expect(archived == (try info("preview.pdf")), "archive \(archived) / preview")
    #expect(!archived.joined().contains("receipt-job-"), "\(archived)")
    // One document 31 days old, one 29: the next start removes the first only.
    #expect(daemon.terminate() == 0)
    for (id, days) in [(ids[0], 31), (ids[1], 29)] {
      let path = work.appendingPathComponent("queue-archive/\(id).pdf").path
      #expect(try Tool.run("touch", ["-d", "\(days) days ago", path]).status == 0)
    }
    try daemon.start()
    #expect(waitUntil(seconds: 30) { !FileManager.default.fileExists(atPath: file.path) }, "swept at start")
    let gone = try daemon.request("GET", "/v1/jobs/\(ids[0])/document.pdf")
    #expect(
      gone.status == 410 && (gone.json["detail"] as? String)?.contains("archiveDays is 30") == true, "\(gone.json)")
    #expect(try daemon.request("GET", "/v1/jobs/\(ids[1])/document.pdf").status == 200, "29 days: kept")
  }

  @Test func archiveDaysZeroKeepsNone() throws {
    let work = try Tool.temporaryDirectory()
    let daemon = try daemon(work, archiveDays: 0)
    try daemon.start()
    defer { _ = daemon.terminate() }
    let ids = try printed(daemon, 1)
    let job = try daemon.request("GET", "/v1/jobs/\(ids[0])").json
    #expect(job["documentSha256"] == nil, "no document recorded")
    #expect(try daemon.request("GET", "/v1/jobs/\(ids[0])/document.pdf").status == 404)
    #expect(!FileManager.default.fileExists(atPath: work.appendingPathComponent("queue-archive").path))
  }
}
