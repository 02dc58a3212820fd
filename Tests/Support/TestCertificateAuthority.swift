import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A certificate authority for tests, made by the `openssl` command — certificates our TLS
/// clients check are made by a tool other than ours: a P-256 key and a self-signed certificate,
/// and the certificates it issues (each with its key, mode 0600), all valid for two days.
public struct TestCertificateAuthority: Sendable {
  /// Where its files are (under ``Scratch/root``).
  public let directory: URL
  /// The authority's certificate (PEM): what a client that trusts it is given.
  public let certificate: String
  private let key: String

  /// A new authority named `name`.
  public init(name: String = "receipt test authority") throws {
    directory = try Scratch.directory("ca")
    certificate = directory.path + "/ca.pem"
    key = directory.path + "/ca.key"
    try Self.openssl([
      "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key, "-out",
      certificate, "-days", "2", "-subj", "/CN=\(name)",
    ])
  }

  /// A certificate for `commonName` signed by this authority, with `alternativeNames` as its
  /// subjectAltName (`DNS:localhost`, `IP:127.0.0.1`; none: the name is only the CN, which
  /// verifiers ignore when a SAN is present and read otherwise). Returns its and its key's paths.
  public func issue(_ file: String, commonName: String, alternativeNames: [String] = []) throws -> (
    certificate: String, key: String
  ) {
    let base = directory.path + "/" + file
    try Self.openssl([
      "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", base + ".key",
      "-out", base + ".csr", "-subj", "/CN=\(commonName)",
    ])
    var extensions = [
      "basicConstraints=CA:FALSE", "keyUsage=digitalSignature,keyEncipherment",
      "extendedKeyUsage=serverAuth,clientAuth",
    ]
    if !alternativeNames.isEmpty { extensions.append("subjectAltName=" + alternativeNames.joined(separator: ",")) }
    try extensions.joined(separator: "\n").write(toFile: base + ".ext", atomically: true, encoding: .utf8)
    try Self.openssl([
      "x509", "-req", "-in", base + ".csr", "-CA", certificate, "-CAkey", key, "-CAcreateserial", "-out", base + ".pem",
      "-days", "2", "-extfile", base + ".ext",
    ])
    guard chmod(base + ".key", 0o600) == 0 else { throw RigError("chmod \(base).key failed") }
    return (base + ".pem", base + ".key")
  }

  private static func openssl(_ arguments: [String]) throws {
    let result = try Tool.run("openssl", arguments)
    guard result.status == 0 else { throw RigError("openssl \(arguments.first ?? "") failed: \(result.stderr)") }
  }
}
