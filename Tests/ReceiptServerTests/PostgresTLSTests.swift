import Foundation
import ReceiptKit
import ReceiptTestSupport
import Testing

@testable import ReceiptServer

/// TLS to PostgreSQL, against a real server that refuses every session without it
/// (``TLSPostgres``: certificates `openssl` made; the server's names only `localhost`). What
/// PostgreSQL itself reports (`pg_stat_ssl`) is the oracle for "encrypted".
@Suite(.serialized) struct PostgresTLSTests {
  func database(owner: String = "postgres", host: String = "127.0.0.1", _ query: String) throws -> (
    url: String, name: String
  ) {
    try TLSPostgres.shared.get().database(owner: owner, host: host, query)
  }

  func sessions(_ name: String) throws -> (encrypted: Int, plain: Int) {
    try TLSPostgres.shared.get().sessions(name)
  }

  /// A store on `url` that has stored a job and taken a printer (the pool's sessions, the
  /// listener's and the printer's own), for `body` to look at before it is closed; or the
  /// reason it could not.
  @discardableResult
  func use(_ url: String, while body: () throws -> Void = {}) async throws -> Result<Void, StoreUnavailable> {
    let store = try PostgresJobStore(url: PostgresURL(url), timeout: .seconds(10)).started()
    do {
      try await store.open()
      _ = try await store.accept(
        JobRequest(printer: "bar", template: "receipt", data: Data("{}".utf8)), idempotencyKey: nil)
      _ = try await store.own(printer: "bar", maxCrashes: 3)
      #expect(await store.owns(printer: "bar"))
      try body()
      await store.close()
      return .success(())
    } catch let error as StoreUnavailable {
      await store.close()
      return .failure(error)
    }
  }

  @Test func requireEncryptsEverySessionOfTheDaemon() async throws {
    let (url, name) = try database("sslmode=require")
    try await use(url) {
      let counted = try sessions(name)
      #expect(counted.encrypted >= 3 && counted.plain == 0, "the pool's, the listener's and the printer's: \(counted)")
    }.get()
  }

  /// libpq's default: a URL without `sslmode` uses TLS when the server offers it.
  @Test func withoutSSLModeTheDaemonPrefersTLS() async throws {
    let (url, name) = try database("")
    try await use(url) {
      let counted = try sessions(name)
      #expect(counted.encrypted >= 3, "\(counted)")
    }.get()
  }

  @Test func disableIsRefusedByAServerThatRequiresTLS() async throws {
    let (url, _) = try database("sslmode=disable")
    let refused = try await use(url)
    guard case .failure(let error) = refused else {
      Issue.record("a plain session was accepted")
      return
    }
    #expect(error.reason.contains("no encryption"), "PostgreSQL's reason: \(error.reason)")
  }

  /// `verify-full` checks that the certificate names the host: it names `localhost`, not
  /// `127.0.0.1` — which `verify-ca` does not check.
  @Test func verifyFullChecksTheHostVerifyCADoesNot() async throws {
    let ca = try TLSPostgres.shared.get().authority.certificate
    let named = try database(host: "localhost", "sslmode=verify-full&sslrootcert=\(ca)")
    try await use(named.url) {
      let counted = try sessions(named.name)
      #expect(counted.encrypted >= 3, "\(counted)")
    }.get()

    let byAddress = try database("sslmode=verify-full&sslrootcert=\(ca)")
    let refused = try await use(byAddress.url)
    guard case .failure(let error) = refused else {
      Issue.record("a certificate for localhost passed for 127.0.0.1")
      return
    }
    #expect(error.reason.contains("does not name"), "\(error.reason)")

    try await use(try database("sslmode=verify-ca&sslrootcert=\(ca)").url).get()
  }

  /// A server whose certificate no trusted authority signed is refused by `verify-ca`,
  /// `verify-full` (the system's authorities) and `require` with `sslrootcert`; plain `require`
  /// encrypts without checking, as libpq's.
  @Test func anUntrustedCertificateIsRefused() async throws {
    let stranger = try TLSPostgres.shared.get().stranger.certificate
    for query in [
      "sslmode=verify-ca&sslrootcert=\(stranger)", "sslmode=require&sslrootcert=\(stranger)", "sslmode=verify-full",
    ] {
      let refused = try await use(try database(host: "localhost", query).url)
      guard case .failure(let error) = refused else {
        Issue.record("\(query): a certificate no trusted authority signed was accepted")
        continue
      }
      #expect(error.reason.contains("not signed by"), "\(query): \(error.reason)")
    }
    try await use(try database("sslmode=require").url).get()
  }

  /// The daemon's own certificate signs it in where `pg_hba.conf` says `cert`; without one it
  /// is refused.
  @Test func aClientCertificateSignsTheDaemonIn() async throws {
    let rig = try TLSPostgres.shared.get()
    let with = try database(
      owner: "till",
      "sslmode=verify-ca&sslrootcert=\(rig.authority.certificate)&sslcert=\(rig.till.certificate)&sslkey=\(rig.till.key)"
    )
    try await use(with.url) {
      let counted = try sessions(with.name)
      #expect(counted.encrypted >= 3, "\(counted)")
    }.get()
    let refused = try await use(try database(owner: "till", "sslmode=require").url)
    guard case .failure(let error) = refused else {
      Issue.record("signed in without a certificate")
      return
    }
    #expect(error.reason.contains("certificate"), "\(error.reason)")
  }

  /// Mistakes in the URL's TLS part are told before anything connects, each with its fix.
  @Test func mistakesAreToldWithTheirFix() throws {
    let rig = try TLSPostgres.shared.get()
    func message(_ query: String) -> String {
      do {
        _ = try PostgresURL("postgres://till@db.example:5432/queue?" + query)
        return "accepted"
      } catch {
        return "\(error)"
      }
    }
    #expect(message("sslmode=verify").contains("give one of disable, allow, prefer, require, verify-ca, verify-full"))
    #expect(
      message("sslmode=verify-ca&sslrootcert=/nonexistent/ca.pem").contains(
        "sslrootcert=/nonexistent/ca.pem: no such file"))
    #expect(message("sslrootcert=\(rig.till.key)").contains("holds no PEM certificate"))
    #expect(message("sslcert=\(rig.till.certificate)").contains("sslcert and sslkey go together"))
    let shared = rig.authority.directory.path + "/shared.key"
    try FileManager.default.copyItem(atPath: rig.till.key, toPath: shared)
    #expect(chmod(shared, 0o644) == 0)
    #expect(message("sslcert=\(rig.till.certificate)&sslkey=\(shared)").contains("chmod 600 it"))
    let other = try rig.stranger.issue("other", commonName: "till")
    #expect(
      message("sslcert=\(rig.till.certificate)&sslkey=\(other.key)").contains("check that sslkey is sslcert's key"))
    // Not read at all when TLS is off.
    #expect(message("sslmode=disable&sslrootcert=/nonexistent/ca.pem") == "accepted")
    let url = try PostgresURL(
      "postgres://till:secret@db.example/queue?sslmode=verify-full&sslrootcert=\(rig.authority.certificate)")
    #expect(
      url.redacted
        == "postgres://till:***@db.example:5432/queue?sslmode=verify-full&sslrootcert=\(rig.authority.certificate)")
  }
}
