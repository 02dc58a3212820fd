package import Foundation
package import ReceiptKit

extension ReceiptServer {
  /// How the daemon is set up: from a JSON file, the environment and flags (in rising order).
  package struct Configuration: Sendable {
    package var host: String
    package var port: Int
    /// The queue: a SQLite file, or a PostgreSQL database shared by several daemons
    /// (`postgres://user@host:port/database`).
    package var database: String
    package var templates: URL
    package var printers: [PrinterConfig]
    /// The printer of jobs that name none.
    package var defaultPrinter: String?
    package var maxAttempts: Int
    /// Largest request body.
    package var maxBodyBytes: Int
    /// Accepted bearer tokens (`Authorization: Bearer …`); required when listening off loopback.
    package var tokens: [String]
    /// Origins of browser POS pages allowed to call the API (CORS); empty: none.
    package var corsOrigins: [String]
    /// Seconds a stopping worker gives the job in hand.
    package var shutdownGrace: TimeInterval
    /// Names clients may use for the daemon in `Host` besides its address (e.g. `pos-server.local`).
    package var hostNames: [String]
    /// Most open connections; further ones wait in the kernel's backlog.
    package var maxConnections: Int
    /// Most open event streams (`GET /v1/events`); a new one beyond it ends the oldest, so
    /// streams never hold the connections the API needs. Nil: an eighth of `maxConnections`,
    /// between 1 and 64.
    package var maxEventStreams: Int?
    /// The event stream bound in force.
    package var eventStreamLimit: Int { maxEventStreams ?? min(64, max(1, maxConnections / 8)) }
    /// Seconds a connection may stay idle (no bytes) before it is closed.
    package var idleTimeout: TimeInterval
    /// Seconds a client has to send a request's head after connecting or after the last answer.
    package var headerTimeout: TimeInterval
    /// Unclean stops of the daemon while a job was printing after which the job is dead.
    package var maxCrashes: Int
    /// The tickets `POST /v1/orders` makes of an order (see ``Route``).
    package var routes: [Route] = []
    /// Seconds a printer may be stopped, out of paper or unreachable before its tickets go to
    /// their route's fallback printer.
    package var failoverAfter: TimeInterval = 30
    /// Where the PDF of every printed job is kept (default: beside the SQLite file,
    /// `<database name>-archive`; with PostgreSQL, `receipt-archive` in the working directory).
    package var archive: URL?
    /// Days an archived PDF is kept; 0 keeps none.
    package var archiveDays: Int = 30
    /// Days a finished document job keeps its document (see ``ReceiptSettings/documentDays``).
    package var documentDays: Int = 7
    /// Seconds without a poll after which a printer that polls is unreachable (see
    /// ``ReceiptSettings/pollTimeout``).
    package var pollTimeout: TimeInterval = 30
    /// Seconds a printer that polls has to confirm a job it fetched (see
    /// ``ReceiptSettings/confirmTimeout``).
    package var confirmTimeout: TimeInterval = 120
    /// The e-receipts' sender and mail transport (nil: no `mailFrom`).
    var mail: MailSettings?
    /// Signed webhooks by name (`POST /v1/webhooks/NAME`).
    var webhooks: [String: Webhook] = [:]
    /// The IPP Everywhere / AirPrint front (nil: off).
    package var ipp: IPPConfiguration?

    /// Where e-receipt handoffs keep their files (beside the SQLite file, `<name>-mail`; with
    /// PostgreSQL, `receipt-mail` in the working directory).
    var mailDirectory: URL {
      if ReceiptSettings.isDatabaseURL(database) { return URL(fileURLWithPath: "receipt-mail") }
      let database = URL(fileURLWithPath: database)
      return database.deletingLastPathComponent().appendingPathComponent(
        database.deletingPathExtension().lastPathComponent + "-mail")
    }

    /// Where the IPP listener keeps the certificate it made for itself (beside the SQLite file,
    /// `<name>-tls`; with PostgreSQL, `receipt-tls` in the working directory).
    var tlsDirectory: URL {
      if ReceiptSettings.isDatabaseURL(database) { return URL(fileURLWithPath: "receipt-tls") }
      let database = URL(fileURLWithPath: database)
      return database.deletingLastPathComponent().appendingPathComponent(
        database.deletingPathExtension().lastPathComponent + "-tls")
    }

    /// The printers offered over IPP: all but e-mail destinations, which need an address per job.
    package var ippPrinters: [PrinterConfig] {
      printers.filter { if case .mail = $0.target.delivery { false } else { true } }
    }
    package var ippPrinterNames: [String] { ippPrinters.map(\.name) }

    /// The archive directory, nil when archiving is off.
    package var archiveDirectory: URL? {
      guard archiveDays > 0 else { return nil }
      if let archive { return archive }
      if ReceiptSettings.isDatabaseURL(database) { return URL(fileURLWithPath: "receipt-archive") }
      let database = URL(fileURLWithPath: database)
      return database.deletingLastPathComponent().appendingPathComponent(
        database.deletingPathExtension().lastPathComponent + "-archive")
    }

    /// Creates a configuration; the daemon listens on 127.0.0.1 by default.
    package init(
      host: String = "127.0.0.1", port: Int = 8631, database: String = "receipt-queue.sqlite", templates: URL,
      printers: [PrinterConfig], defaultPrinter: String? = nil, maxAttempts: Int = 20, maxBodyBytes: Int = 1 << 20,
      tokens: [String] = [], corsOrigins: [String] = [], shutdownGrace: TimeInterval = 10, hostNames: [String] = [],
      maxConnections: Int = 512, idleTimeout: TimeInterval = 60, headerTimeout: TimeInterval = 10, maxCrashes: Int = 3
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
      self.hostNames = hostNames
      self.maxConnections = maxConnections
      self.idleTimeout = idleTimeout
      self.headerTimeout = headerTimeout
      self.maxCrashes = maxCrashes
    }

    /// Whether the address is a loopback one (no token needed).
    package var isLoopback: Bool { ["127.0.0.1", "::1", "localhost"].contains(host) }

    /// Whether the daemon listens on every address (`0.0.0.0` or `::`).
    package var listensEverywhere: Bool { ["0.0.0.0", "::", "*"].contains(host) }

    /// The names `Host` may carry on the API's listener (see ``HostMiddleware``).
    package var acceptedHostNames: Set<String> { Self.acceptedHostNames(listening: host, aliases: hostNames) }

    /// The names `Host` may carry on a listener at `host`: that address, the loopback names when
    /// it is loopback or every address, the machine's name (and `.local`, as DNS-SD advertises
    /// it) when it is every address, and the configured aliases.
    package static func acceptedHostNames(listening host: String, aliases: [String]) -> Set<String> {
      let everywhere = ["0.0.0.0", "::", "*"].contains(host)
      // Any loopback address: clients name it `localhost` (libcups sends that for 127.0.0.2 too).
      let loopback = host.hasPrefix("127.") || ["::1", "localhost"].contains(host)
      var names = Set(aliases.map { $0.lowercased() })
      if !everywhere { names.insert(host.lowercased()) }
      if loopback || everywhere { names.formUnion(["localhost", "127.0.0.1", "::1"]) }
      if everywhere {
        let machine = ProcessInfo.processInfo.hostName.lowercased()
        let short = machine.split(separator: ".").first.map(String.init) ?? machine
        names.formUnion([machine, machine + ".local", short, short + ".local"])
      }
      return names
    }

    /// Checks the whole configuration; each error says which setting and how to fix it.
    package func validate() throws {
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
      guard (8...100_000).contains(maxConnections), idleTimeout >= 1, headerTimeout >= 1, maxCrashes >= 1 else {
        throw ReceiptError(
          .data, "maxConnections must be 8…100000, idleTimeout and headerTimeout ≥ 1 s, maxCrashes ≥ 1")
      }
      guard (1...max(1, maxConnections / 2)).contains(eventStreamLimit) else {
        throw ReceiptError(.data, "maxEventStreams must be 1…\(max(1, maxConnections / 2)) (half of maxConnections)")
      }
      if let ipp {
        guard (0...65535).contains(ipp.port), (1 << 16...1 << 30).contains(ipp.maxDocumentBytes) else {
          throw ReceiptError(.data, "ippPort must be 0…65535 and ippMaxDocumentBytes 64 KiB…1 GiB")
        }
        guard ipp.port == 0 || ipp.port != port || ipp.host != host else {
          throw ReceiptError(.data, "ippPort \(ipp.port) is the API's port; give the IPP printers a port of their own")
        }
      }
      guard failoverAfter >= 0, (0...36500).contains(archiveDays), (0...36500).contains(documentDays) else {
        throw ReceiptError(.data, "failoverAfter must be ≥ 0 seconds, archiveDays and documentDays 0…36500")
      }
      try ReceiptEngine.checkRoutes(routes, printers: names, templates: templates)
      for name in hostNames where name.isEmpty || name.contains(where: { $0 == "/" || $0 == ":" || $0 == " " }) {
        throw ReceiptError(.data, "hostNames entry '\(name)' must be a plain host name such as pos-server.local")
      }
      for origin in corsOrigins where origin != "*" {
        guard let url = URL(string: origin), url.scheme != nil, url.host != nil, url.path.isEmpty else {
          throw ReceiptError(
            .data, "CORS origin '\(origin)' must be scheme://host[:port], e.g. https://pos.example.com")
        }
      }
    }

    /// Where the IPP printers listen and what they take.
    package struct IPPConfiguration: Sendable, Equatable {
      /// Default 127.0.0.1: phones and tablets reach it once it listens on the network.
      package var host: String
      /// 0 picks a free port.
      package var port: Int
      /// Advertise each printer over DNS-SD (Avahi) as `_ipp._tcp` with the AirPrint subtype.
      package var advertise: Bool
      /// The largest document a client may send (a request's body).
      package var maxDocumentBytes: Int
      /// TLS on the listener: `ipps://` beside `ipp://` (the default), only `ipps://`, or none.
      package var encryption: IPPEncryption = .optional
      /// The operator's certificate chain and private key (PEM files); nil: a self-signed one the
      /// daemon makes and keeps (``ReceiptServer/Configuration/tlsDirectory``).
      package var certificate: String?
      package var privateKey: String?

      /// Creates an IPP configuration; advertised unless it listens on loopback.
      package init(
        host: String = "127.0.0.1", port: Int = 8633, advertise: Bool? = nil, maxDocumentBytes: Int = 32 << 20
      ) {
        self.host = host
        self.port = port
        self.advertise = advertise ?? !(host.hasPrefix("127.") || ["::1", "localhost"].contains(host))
        self.maxDocumentBytes = maxDocumentBytes
      }
    }

    /// The printer jobs go to when they name none.
    package var effectiveDefaultPrinter: String? { defaultPrinter ?? printers.first?.name }
  }
}
