package import Foundation
import NIOSSL
import PostgresNIO
import ReceiptKit

/// A PostgreSQL address as `--db` takes it: `postgres://user[:password]@host[:port]/database`,
/// or a local socket directory as `postgres://user@/database?host=/var/run/postgresql`, with
/// libpq's TLS parameters (``PostgresTLS``): `?sslmode=verify-full&sslrootcert=/etc/receipt/db-ca.pem`.
package struct PostgresURL: Sendable, CustomStringConvertible {
  package var user: String
  package var password: String?
  /// Host name or address; nil with a socket directory.
  package var host: String?
  package var port: Int
  /// The directory of PostgreSQL's Unix socket (`?host=/path`).
  package var socketDirectory: String?
  package var database: String
  /// TLS on TCP sessions (libpq's `sslmode` and its files).
  package let tls: PostgresTLS
  /// The sessions' TLS context, made once from ``tls`` (nil: `disable`).
  private let sessionContext: NIOSSLContext?

  /// Whether `string` names a PostgreSQL database (not a SQLite file).
  package static func isPostgres(_ string: String) -> Bool {
    string.hasPrefix("postgres://") || string.hasPrefix("postgresql://")
  }

  /// Parses `string`; the error says what is wrong and what the form is.
  package init(_ string: String) throws {
    let form = "the form is postgres://user[:password]@host[:port]/database"
    guard Self.isPostgres(string), let components = URLComponents(string: string) else {
      throw ReceiptError(.data, "'\(Self.redact(string))' is not a PostgreSQL URL; \(form)")
    }
    guard let user = components.user, !user.isEmpty else {
      throw ReceiptError(.data, "'\(Self.redact(string))' names no user; \(form)")
    }
    let database = String(components.path.drop { $0 == "/" })
    guard !database.isEmpty, !database.contains("/") else {
      throw ReceiptError(.data, "'\(Self.redact(string))' names no database; \(form)")
    }
    var socket: String?
    var tls = PostgresTLS()
    for item in components.queryItems ?? [] {
      let value = item.value ?? ""
      switch item.name {
      case "host" where value.hasPrefix("/"): socket = value
      case "sslmode":
        guard let mode = PostgresTLS.Mode(rawValue: value) else {
          let modes = PostgresTLS.Mode.allCases.map(\.rawValue).joined(separator: ", ")
          throw ReceiptError(.data, "sslmode=\(value) is not a TLS mode; give one of \(modes)")
        }
        tls.mode = mode
      case "sslrootcert", "sslcert", "sslkey":
        guard !value.isEmpty else { throw ReceiptError(.data, "\(item.name) in the database URL names no file") }
        switch item.name {
        case "sslrootcert": tls.rootCertificates = value
        case "sslcert": tls.clientCertificate = value
        default: tls.clientKey = value
        }
      default:
        throw ReceiptError(
          .data,
          "unknown parameter '\(item.name)' in the database URL (known: host, sslmode, sslrootcert, sslcert, sslkey)")
      }
    }
    try tls.load()
    let host = components.host.flatMap { $0.isEmpty ? nil : $0 }
    guard host != nil || socket != nil else {
      throw ReceiptError(.data, "'\(Self.redact(string))' names no host; \(form) (or ?host=/socket/directory)")
    }
    self.user = user
    password = components.password
    self.host = host
    port = components.port ?? 5432
    socketDirectory = socket
    self.database = database
    self.tls = tls
    do {
      sessionContext = try tls.configuration.map { try NIOSSLContext(configuration: $0) }
    } catch {
      throw ReceiptError(
        .data, "the database URL's TLS files do not make a TLS client (\(error)); check that sslkey is sslcert's key")
    }
  }

  /// The URL without its password, for messages and logs.
  package var redacted: String {
    let socketPort = port == 5432 ? "" : ":\(port)"
    var parameters = socketDirectory.map { ["host=\($0)"] } ?? []
    if socketDirectory == nil { parameters += tls.parameters }
    let address =
      (socketDirectory == nil ? "@\(host ?? ""):\(port)/\(database)" : "@\(socketPort)/\(database)")
      + (parameters.isEmpty ? "" : "?" + parameters.joined(separator: "&"))
    return "postgres://\(user)" + (password == nil ? "" : ":***") + address
  }

  package var description: String { redacted }

  static func redact(_ string: String) -> String {
    guard var components = URLComponents(string: string), components.password != nil else { return string }
    components.password = "***"
    return components.string ?? string
  }

  /// The pool's configuration.
  var clientConfiguration: PostgresClient.Configuration {
    var configuration: PostgresClient.Configuration
    if let socketDirectory {
      configuration = .init(
        unixSocketPath: socketDirectory + "/.s.PGSQL.\(port)", username: user, password: password, database: database)
    } else {
      configuration = .init(
        host: host ?? "localhost", port: port, username: user, password: password, database: database,
        tls: tls.configuration.map { tls.isRequired ? .require($0) : .prefer($0) } ?? .disable)
    }
    configuration.options.connectTimeout = Self.connectTimeout
    return configuration
  }

  /// How long a new session may take, from connecting through authentication (postgres-nio's
  /// deadline covers the whole startup; its default). 5 s was seen to be too short on a loaded
  /// 2-core machine: PostgreSQL answered a fresh session after ~6 s, the client had already
  /// closed it ("could not send data to client: Broken pipe") and started another, and a
  /// starting daemon gave up after 15 s with the server up all along.
  static let connectTimeout: Duration = .seconds(10)

  /// A single connection's configuration (an owned printer's session, the listener).
  var configuration: PostgresConnection.Configuration {
    var configuration: PostgresConnection.Configuration
    if let socketDirectory {
      configuration = .init(
        unixSocketPath: socketDirectory + "/.s.PGSQL.\(port)", username: user, password: password, database: database)
    } else {
      configuration = .init(
        host: host ?? "localhost", port: port, username: user, password: password, database: database,
        tls: sessionTLS)
    }
    configuration.options.connectTimeout = .seconds(Self.connectTimeout.components.seconds)
    return configuration
  }

  /// A single session's TLS: one `NIOSSLContext` for all of them (it holds the loaded
  /// certificates; making one per session would parse them again).
  private var sessionTLS: PostgresConnection.Configuration.TLS {
    guard let context = sessionContext else { return .disable }
    return tls.isRequired ? .require(context) : .prefer(context)
  }
}
