import Foundation
import ReceiptKit

extension ReceiptServer {
  /// How the daemon is set up: from a JSON file, the environment and flags (in rising order).
  public struct Configuration: Sendable {
    public var host: String
    public var port: Int
    /// The SQLite file of the queue.
    public var database: String
    public var templates: URL
    public var printers: [PrinterConfig]
    /// The printer of jobs that name none.
    public var defaultPrinter: String?
    public var maxAttempts: Int
    /// Largest request body.
    public var maxBodyBytes: Int
    /// Accepted bearer tokens (`Authorization: Bearer …`); required when listening off loopback.
    public var tokens: [String]
    /// Origins of browser POS pages allowed to call the API (CORS); empty: none.
    public var corsOrigins: [String]
    /// Seconds a stopping worker gives the job in hand.
    public var shutdownGrace: TimeInterval

    /// Creates a configuration; the daemon listens on 127.0.0.1 by default.
    public init(
      host: String = "127.0.0.1", port: Int = 8631, database: String = "receipt-queue.sqlite", templates: URL,
      printers: [PrinterConfig], defaultPrinter: String? = nil, maxAttempts: Int = 20, maxBodyBytes: Int = 1 << 20,
      tokens: [String] = [], corsOrigins: [String] = [], shutdownGrace: TimeInterval = 10
    ) {
      self.host = host
      self.port = port
      self.database = database
      self.templates = templates
      self.printers = printers
      self.defaultPrinter = defaultPrinter
      self.maxAttempts = maxAttempts
      self.maxBodyBytes = maxBodyBytes
      self.tokens = tokens
      self.corsOrigins = corsOrigins
      self.shutdownGrace = shutdownGrace
    }

    /// Whether the address is a loopback one (no token needed).
    public var isLoopback: Bool { ["127.0.0.1", "::1", "localhost"].contains(host) }

    /// Checks the whole configuration; each error says which setting and how to fix it.
    public func validate() throws {
      guard isLoopback || !tokens.isEmpty else {
        throw ReceiptError(
          .data, "listening on \(host) needs a bearer token (--token or \"tokens\"); only 127.0.0.1 is open without one"
        )
      }
      guard tokens.allSatisfy({ $0.count >= 16 }) else {
        throw ReceiptError(.data, "bearer tokens must be at least 16 characters (e.g. openssl rand -hex 16)")
      }
      guard !printers.isEmpty else { throw ReceiptError(.data, "no printers configured; give --printer NAME=TARGET") }
      let names = printers.map(\.name)
      guard Set(names).count == names.count else { throw ReceiptError(.data, "printer names must be unique: \(names)") }
      if let defaultPrinter, !names.contains(defaultPrinter) {
        throw ReceiptError(
          .data, "the default printer '\(defaultPrinter)' is not one of \(names.joined(separator: ", "))")
      }
      guard (0...65535).contains(port), maxAttempts >= 1, maxBodyBytes >= 1024, shutdownGrace >= 0 else {
        throw ReceiptError(.data, "port must be 0…65535, maxAttempts ≥ 1, maxBodyBytes ≥ 1024, shutdownGrace ≥ 0")
      }
      for origin in corsOrigins where origin != "*" {
        guard let url = URL(string: origin), url.scheme != nil, url.host != nil, url.path.isEmpty else {
          throw ReceiptError(
            .data, "CORS origin '\(origin)' must be scheme://host[:port], e.g. https://pos.example.com")
        }
      }
    }

    /// The printer jobs go to when they name none.
    public var effectiveDefaultPrinter: String? { defaultPrinter ?? printers.first?.name }
  }
}
