import Foundation
import ReceiptTestSupport
import Testing

/// The shipped daemon on a PostgreSQL server that refuses sessions without TLS (``TLSPostgres``):
/// with the server's authority and `verify-full` it prints; with an authority that did not sign
/// the server's certificate it stops at once, says why, and exits non-zero.
@Suite(.serialized) struct PostgresTLSEndToEndTests {
  var templates: String { Tool.packageRoot.appendingPathComponent("Templates").path }

  func daemon(_ url: String) throws -> (Daemon, archive: URL, log: URL) {
    let work = try Tool.temporaryDirectory()
    let archive = work.appendingPathComponent("archive")
    try FileManager.default.createDirectory(at: archive, withIntermediateDirectories: true)
    let log = work.appendingPathComponent("serve.log")
    let daemon = try Daemon(
      arguments: ["--db", url, "--printer", "archive=dir:\(archive.path)", "--templates", templates, "--no-ipp"],
      log: log)
    return (daemon, archive, log)
  }

  @Test func theDaemonPrintsOverVerifiedTLS() throws {
    let postgres = try TLSPostgres.shared.get()
    let (url, name) = try postgres.database(
      host: "localhost", "sslmode=verify-full&sslrootcert=\(postgres.authority.certificate)")
    let (daemon, archive, log) = try daemon(url)
    try daemon.start()
    defer { _ = daemon.terminate() }
    let order = try String(contentsOfFile: "\(templates)/Examples/small.json", encoding: .utf8)
    let answer = try daemon.request(
      "POST", "/v1/jobs", body: Data(#"{"template": "receipt", "printer": "archive", "data": \#(order)}"#.utf8))
    #expect(answer.status == 202, "\(String(decoding: answer.body, as: UTF8.self))")
    #expect(
      try waitUntil(seconds: 30) { try FileManager.default.contentsOfDirectory(atPath: archive.path).count == 1 },
      "printed at the directory printer")
    let counted = try postgres.sessions(name)
    #expect(counted.encrypted >= 3 && counted.plain == 0, "\(counted)")
    let announced = try String(contentsOf: log, encoding: .utf8)
    #expect(
      announced.contains("queue postgres://postgres@localhost:\(postgres.cluster.port)/\(name)?sslmode=verify-full"))
  }

  @Test func anUntrustedServerStopsTheDaemonWithTheReason() throws {
    let postgres = try TLSPostgres.shared.get()
    let (url, _) = try postgres.database(
      host: "localhost", "sslmode=verify-full&sslrootcert=\(postgres.stranger.certificate)")
    let (daemon, _, log) = try daemon(url)
    do {
      try daemon.start()
      _ = daemon.terminate()
      Issue.record("the daemon started on a server no trusted authority vouches for")
    } catch {
      #expect("\(error)".contains("exited (status 69)"), "EX_UNAVAILABLE, as for any database it cannot use: \(error)")
    }
    let said = try String(contentsOf: log, encoding: .utf8)
    #expect(said.contains("the server's certificate is not signed by a trusted authority"), "\(said)")
  }
}
