public import Foundation

/// The settings of the daemon's configuration file (also read by `receipt print --routes`), of
/// the environment or of flags; nil means not given.
public struct ReceiptSettings: Sendable, Equatable, Decodable {
  public var host: String?
  public var port: Int?
  public var database: String?
  public var templates: String?
  /// Printer name → target (`cups:QUEUE`, `socket://HOST:PORT`, `dir:PATH`).
  public var printers: [String: String]?
  /// Printer name → printer model (`epson-tm-t88v`, or a model's JSON file): receipts for that
  /// printer are laid out for the model's resolution and printable dots.
  public var printerModels: [String: String]?
  public var defaultPrinter: String?
  public var maxAttempts: Int?
  public var maxBodyBytes: Int?
  public var tokens: [String]?
  public var corsOrigins: [String]?
  public var shutdownGrace: Double?
  /// The CUPS server of `cups:` printers ("host:port"); default: CUPS_SERVER or client.conf.
  public var cupsServer: String?
  public var hostNames: [String]?
  public var maxConnections: Int?
  /// Most open `GET /v1/events` streams (default: an eighth of `maxConnections`, 1 to 64).
  public var maxEventStreams: Int?
  public var idleTimeout: Double?
  public var headerTimeout: Double?
  public var maxCrashes: Int?
  /// The routes of `POST /v1/orders` (see ``Route``).
  public var routes: [Route]?
  public var failoverAfter: Double?
  /// The archive directory and how many days a printed PDF is kept there (0: none).
  public var archive: String?
  public var archiveDays: Int?
  /// Printer name → the roll it holds (`58mm`, `80mm`): what IPP clients are offered.
  public var printerPapers: [String: String]?
  /// Printer name → whether an IPP job whose length its client did not choose (the default roll
  /// size) keeps only its printed rows and the margins (default true; false for
  /// pre-printed forms, whose blank end is part of the form).
  public var printerTrimRoll: [String: Bool]?
  /// The IPP Everywhere / AirPrint printers: on or off, their address, whether they are
  /// advertised over DNS-SD, and the largest document they take.
  public var ipp: Bool?
  public var ippHost: String?
  public var ippPort: Int?
  public var ippAdvertise: Bool?
  public var ippMaxDocumentBytes: Int?
  /// TLS on the IPP listener: `optional` (`ipp://` and `ipps://` on one port, the default),
  /// `required` (`ipps://` only) or `off`; and the certificate chain and private key it uses
  /// (PEM files; without them the daemon makes a self-signed certificate and keeps it).
  public var ippTLS: String?
  public var ippCertificate: String?
  public var ippPrivateKey: String?
  /// Days a document job (PDF, raster, picture from an IPP client) keeps its document once it
  /// has completed, failed, died or been canceled; then the document is removed (the job's
  /// record stays). 0: removed when the job ends.
  public var documentDays: Int?
  /// Printer name → `USER:PASSWORD`, the HTTP Basic credentials a printer that polls the daemon
  /// (`cloudprnt:`) must send; a printer that polls without them is answered 401.
  public var printerCredentials: [String: String]?
  /// Seconds without a poll after which a printer that polls is unreachable (default 30).
  public var pollTimeout: Double?
  /// Seconds a printer that polls has to confirm a job it fetched before it is offered again,
  /// marked as a reprint (default 120).
  public var confirmTimeout: Double?
  /// The sender of e-receipts (`mail:` destinations), and the mail transport's command
  /// (default `/usr/sbin/sendmail`; the sendmail interface of Postfix, Exim or msmtp).
  public var mailFrom: String?
  public var sendmail: [String]?
  /// Name → a signed webhook at `POST /v1/webhooks/NAME` (see ``WebhookSettings``).
  public var webhooks: [String: WebhookSettings]?

  /// No settings.
  public init() {}

  /// The keys a configuration file may have (`serve.json(5)` describes each).
  public static let keys: Set<String> = [
    "host", "port", "database", "templates", "printers", "defaultPrinter", "maxAttempts", "maxBodyBytes", "tokens",
    "corsOrigins", "shutdownGrace", "cupsServer", "hostNames", "maxConnections", "maxEventStreams", "idleTimeout",
    "headerTimeout",
    "maxCrashes", "printerModels", "routes", "failoverAfter", "archive", "archiveDays", "printerPapers",
    "printerTrimRoll", "ipp",
    "ippHost", "ippPort", "ippAdvertise", "ippMaxDocumentBytes", "ippTLS", "ippCertificate", "ippPrivateKey",
    "documentDays", "printerCredentials", "pollTimeout",
    "confirmTimeout", "webhooks", "mailFrom", "sendmail",
  ]

  /// Reads a JSON configuration file. Unknown keys are errors (a typo would otherwise be
  /// silently ignored); relative paths are taken from the file's directory.
  public init(file: URL) throws {
    let data: Data
    do {
      data = try Data(contentsOf: file)
    } catch {
      throw ReceiptError(.input, "cannot read the configuration file \(file.path): \(error.localizedDescription)")
    }
    try self.init(data: data, file: file)
  }

  /// Reads the contents of a configuration file (`file` names it in errors and anchors
  /// relative paths).
  package init(data: Data, file: URL) throws {
    guard data.count <= 1 << 20 else { throw ReceiptError(.data, "\(file.path): larger than 1 MiB") }
    let known = Self.keys
    let object: [String: JSONValue]
    do {
      object = try JSONParser.parseObject(data, name: file.path).members
    } catch let error as TemplateError {
      throw ReceiptError(.data, "\(error); see the README's daemon section for the format")
    }
    if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) {
      throw ReceiptError(
        .data, "\(file.path): unknown setting '\(unknown)'; known: \(known.sorted().joined(separator: ", "))")
    }
    if case .array(let routes)? = object["routes"] {
      let fields: Set<String> = [
        "name", "printer", "template", "items", "filter", "when", "copies", "fallback", "label",
      ]
      for case .object(let route) in routes {
        if let unknown = route.keys.sorted().first(where: { !fields.contains($0) }) {
          throw ReceiptError(
            .data,
            "\(file.path): a route has the unknown field '\(unknown)'; a route has \(fields.sorted().joined(separator: ", "))"
          )
        }
      }
    }
    if case .object(let hooks)? = object["webhooks"] {
      for (name, hook) in hooks.sorted(by: { $0.key < $1.key }) {
        guard case .object(let fields) = hook else { continue }
        if let unknown = fields.keys.sorted().first(where: { !WebhookSettings.fields.contains($0) }) {
          throw ReceiptError(
            .data,
            "\(file.path): webhook '\(name)' has the unknown field '\(unknown)'; a webhook has \(WebhookSettings.fields.sorted().joined(separator: ", "))"
          )
        }
      }
    }
    do {
      self = try JSONDecoder().decode(ReceiptSettings.self, from: data)
    } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
      let key = context.codingPath.map(\.stringValue).joined(separator: ".")
      throw ReceiptError(.data, "\(file.path): '\(key)' has the wrong type (\(context.debugDescription))")
    } catch let DecodingError.keyNotFound(key, context) {
      let path = (context.codingPath + [key]).reduce("") { path, key in
        key.intValue.map { "\(path)[\($0)]" } ?? (path.isEmpty ? key.stringValue : "\(path).\(key.stringValue)")
      }
      throw ReceiptError(
        .data,
        "\(file.path): '\(path)' is missing (a route needs name, printer and template; a webhook scheme and secret)")
    }
    let base = file.deletingLastPathComponent()
    func resolve(_ path: String?) -> String? {
      path.map { $0.hasPrefix("/") ? $0 : base.appendingPathComponent($0).standardizedFileURL.path }
    }
    if let given = database, !Self.isDatabaseURL(given) { database = resolve(given) }
    templates = resolve(templates)
    archive = resolve(archive)
    ippCertificate = resolve(ippCertificate)
    ippPrivateKey = resolve(ippPrivateKey)
    printers = printers?.mapValues { $0.hasPrefix("dir:") ? "dir:" + resolve(String($0.dropFirst(4)))! : $0 }
  }

  /// Reads `RECEIPT_HOST`, `RECEIPT_PORT`, `RECEIPT_DB`, `RECEIPT_TEMPLATES`, `RECEIPT_PRINTERS`
  /// (`name=target,name=target`), `RECEIPT_DEFAULT_PRINTER`, `RECEIPT_TOKENS` (comma-separated),
  /// `RECEIPT_CORS_ORIGINS` (comma-separated), `RECEIPT_IPP` (on/off), `RECEIPT_IPP_HOST`,
  /// `RECEIPT_IPP_PORT`, `RECEIPT_IPP_TLS` and `CUPS_SERVER`.
  public init(environment: [String: String]) throws {
    func list(_ key: String) -> [String]? {
      environment[key].map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
    }
    host = environment["RECEIPT_HOST"]
    if let text = environment["RECEIPT_PORT"] {
      guard let value = Int(text) else { throw ReceiptError(.data, "RECEIPT_PORT must be a number, not '\(text)'") }
      port = value
    }
    database = environment["RECEIPT_DB"]
    templates = environment["RECEIPT_TEMPLATES"]
    if let specs = list("RECEIPT_PRINTERS") {
      let parsed = try specs.map { try PrinterConfig.parse($0, setting: "RECEIPT_PRINTERS") }
      printers = Dictionary(parsed.map { ($0.name, $0.target.description) }) { _, new in new }
    }
    defaultPrinter = environment["RECEIPT_DEFAULT_PRINTER"]
    tokens = list("RECEIPT_TOKENS")
    corsOrigins = list("RECEIPT_CORS_ORIGINS")
    hostNames = list("RECEIPT_HOST_NAMES")
    cupsServer = environment["CUPS_SERVER"]
    ippHost = environment["RECEIPT_IPP_HOST"]
    if let text = environment["RECEIPT_IPP_PORT"] {
      guard let value = Int(text) else {
        throw ReceiptError(.data, "RECEIPT_IPP_PORT must be a number, not '\(text)'")
      }
      ippPort = value
    }
    ippTLS = environment["RECEIPT_IPP_TLS"]
    if let text = environment["RECEIPT_IPP"] {
      guard ["on", "off"].contains(text) else { throw ReceiptError(.data, "RECEIPT_IPP is on or off, not '\(text)'") }
      ipp = text == "on"
    }
  }

  /// With no printers configured, the machine's CUPS queues (`cups:NAME` each; the default
  /// printer is CUPS's default unless one is set). An error says how to fix a machine with
  /// no reachable cupsd or no queues.
  public func withCUPSQueuesIfNoPrinters() throws -> ReceiptSettings {
    guard printers?.isEmpty ?? true else { return self }
    let client = CUPSClient(server: cupsServer)
    let queues: [PrinterQueue]
    do {
      queues = try client.queues()
    } catch {
      throw ReceiptError(
        .printer,
        "no printers configured, and the machine's CUPS queues cannot be listed (\(error)); give --printer NAME=TARGET"
      )
    }
    guard !queues.isEmpty else {
      throw ReceiptError(
        .data,
        "no printers configured, and CUPS at \(client.server) has no queues; give --printer NAME=TARGET or add a queue (lpadmin -p NAME -E -v URI)"
      )
    }
    var result = self
    result.printers = Dictionary(queues.map { ($0.name, "cups:\($0.name)") }) { a, _ in a }
    result.defaultPrinter = defaultPrinter ?? queues.first(where: \.isDefault)?.name
    return result
  }

  /// These settings with `other`'s given ones on top.
  public func overridden(by other: ReceiptSettings) -> ReceiptSettings {
    var result = self
    result.host = other.host ?? host
    result.port = other.port ?? port
    result.database = other.database ?? database
    result.templates = other.templates ?? templates
    result.printers = other.printers ?? printers
    result.printerModels = other.printerModels ?? printerModels
    result.defaultPrinter = other.defaultPrinter ?? defaultPrinter
    result.maxAttempts = other.maxAttempts ?? maxAttempts
    result.maxBodyBytes = other.maxBodyBytes ?? maxBodyBytes
    result.tokens = other.tokens ?? tokens
    result.corsOrigins = other.corsOrigins ?? corsOrigins
    result.shutdownGrace = other.shutdownGrace ?? shutdownGrace
    result.cupsServer = other.cupsServer ?? cupsServer
    result.hostNames = other.hostNames ?? hostNames
    result.maxConnections = other.maxConnections ?? maxConnections
    result.maxEventStreams = other.maxEventStreams ?? maxEventStreams
    result.idleTimeout = other.idleTimeout ?? idleTimeout
    result.headerTimeout = other.headerTimeout ?? headerTimeout
    result.maxCrashes = other.maxCrashes ?? maxCrashes
    result.routes = other.routes ?? routes
    result.failoverAfter = other.failoverAfter ?? failoverAfter
    result.archive = other.archive ?? archive
    result.archiveDays = other.archiveDays ?? archiveDays
    result.printerPapers = other.printerPapers ?? printerPapers
    result.printerTrimRoll = other.printerTrimRoll ?? printerTrimRoll
    result.ipp = other.ipp ?? ipp
    result.ippHost = other.ippHost ?? ippHost
    result.ippPort = other.ippPort ?? ippPort
    result.ippAdvertise = other.ippAdvertise ?? ippAdvertise
    result.ippMaxDocumentBytes = other.ippMaxDocumentBytes ?? ippMaxDocumentBytes
    result.ippTLS = other.ippTLS ?? ippTLS
    result.ippCertificate = other.ippCertificate ?? ippCertificate
    result.ippPrivateKey = other.ippPrivateKey ?? ippPrivateKey
    result.documentDays = other.documentDays ?? documentDays
    result.printerCredentials = other.printerCredentials ?? printerCredentials
    result.pollTimeout = other.pollTimeout ?? pollTimeout
    result.confirmTimeout = other.confirmTimeout ?? confirmTimeout
    result.webhooks = other.webhooks ?? webhooks
    result.mailFrom = other.mailFrom ?? mailFrom
    result.sendmail = other.sendmail ?? sendmail
    return result
  }

  /// Whether `database` names a PostgreSQL database (`postgres://…`) rather than a SQLite file.
  public static func isDatabaseURL(_ database: String) -> Bool {
    database.hasPrefix("postgres://") || database.hasPrefix("postgresql://")
  }
}
