package import Foundation
import PostgresNIO
import ReceiptKit

/// A PostgreSQL address as `--db` takes it: `postgres://user[:password]@host[:port]/database`,
/// or a local socket directory as `postgres://user@/database?host=/var/run/postgresql`.
/// `sslmode=disable` (the default) is the only mode: keep the database on a trusted network or
/// on the same machine.
package struct PostgresURL: Sendable, CustomStringConvertible {
  package var user: String
  package var password: String?
  /// Host name or address; nil with a socket directory.
  package var host: String?
  package var port: Int
  /// The directory of PostgreSQL's Unix socket (`?host=/path`).
  package var socketDirectory: String?
  package var database: String

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
    for item in components.queryItems ?? [] {
      switch (item.name, item.value ?? "") {
      case ("host", let path) where path.hasPrefix("/"): socket = path
      case ("sslmode", "disable"): break
      case ("sslmode", let mode):
        throw ReceiptError(
          .data, "sslmode=\(mode) is not supported (only disable); use a trusted network or a local socket")
      default:
        throw ReceiptError(.data, "unknown parameter '\(item.name)' in the database URL (known: host, sslmode)")
      }
    }
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
  }

  /// The URL without its password, for messages and logs.
  package var redacted: String {
    let socketPort = port == 5432 ? "" : ":\(port)"
    let address =
      socketDirectory.map { "@\(socketPort)/\(database)?host=\($0)" } ?? "@\(host ?? ""):\(port)/\(database)"
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
        host: host ?? "localhost", port: port, username: user, password: password, database: database, tls: .disable)
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
        host: host ?? "localhost", port: port, username: user, password: password, database: database, tls: .disable)
    }
    configuration.options.connectTimeout = .seconds(Self.connectTimeout.components.seconds)
    return configuration
  }
}
