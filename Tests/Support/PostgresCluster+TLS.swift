import Foundation

/// A PostgreSQL cluster that refuses every TCP session without TLS (`hostnossl … reject`), with
/// certificates `openssl` made: the server's names only `localhost` (not `127.0.0.1`), and
/// `till`'s is a client certificate for the `cert` method (`hostssl all till … cert`). What
/// PostgreSQL itself reports (`pg_stat_ssl`) tells whether a session is encrypted.
public struct TLSPostgres: Sendable {
  public let cluster: PostgresCluster
  /// The authority that signed the server's and `till`'s certificates.
  public let authority: TestCertificateAuthority
  /// An authority that signed nothing the server has.
  public let stranger: TestCertificateAuthority
  /// `till`'s client certificate and key.
  public let till: (certificate: String, key: String)

  /// The process's TLS cluster, started on first use.
  public static let shared = Result { try TLSPostgres() }

  init() throws {
    let authority = try TestCertificateAuthority()
    let server = try authority.issue("server", commonName: "localhost", alternativeNames: ["DNS:localhost"])
    till = try authority.issue("till", commonName: "till")
    stranger = try TestCertificateAuthority(name: "someone else")
    self.authority = authority
    cluster = try PostgresCluster { directory in
      for (from, name) in [
        (authority.certificate, "ca.pem"), (server.certificate, "server.pem"), (server.key, "server.key"),
      ] {
        try FileManager.default.copyItem(atPath: from, toPath: directory.path + "/" + name)
        try PostgresCluster.giveToPostgres(directory.path + "/" + name)
      }
      let hba = """
        local all all trust
        hostssl all till 127.0.0.1/32 cert
        hostssl all all 127.0.0.1/32 trust
        hostnossl all all 0.0.0.0/0 reject
        """
      try hba.write(toFile: directory.path + "/data/pg_hba.conf", atomically: false, encoding: .utf8)
      return [
        "ssl=on", "ssl_cert_file=\(directory.path)/server.pem", "ssl_key_file=\(directory.path)/server.key",
        "ssl_ca_file=\(directory.path)/ca.pem",
      ]
    }
    try cluster.psql("CREATE ROLE till LOGIN")
  }

  /// A new database owned by `owner`, and its URL (host `host`) with `query`.
  public func database(owner: String = "postgres", host: String = "127.0.0.1", _ query: String) throws -> (
    url: String, name: String
  ) {
    let name = "receipt_tls_\(UUID().uuidString.prefix(8).lowercased())"
    try cluster.psql("CREATE DATABASE \(name) OWNER \(owner)")
    return ("postgres://\(owner)@\(host):\(cluster.port)/\(name)" + (query.isEmpty ? "" : "?" + query), name)
  }

  /// The database's sessions as PostgreSQL counts them: encrypted, and not.
  public func sessions(_ name: String) throws -> (encrypted: Int, plain: Int) {
    let row = try cluster.psql(
      "SELECT count(*) FILTER (WHERE s.ssl), count(*) FILTER (WHERE NOT s.ssl) "
        + "FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) WHERE a.datname = '\(name)'")
    let counts = row.split(separator: "|").compactMap { Int($0) }
    return (counts.first ?? -1, counts.last ?? -1)
  }
}
