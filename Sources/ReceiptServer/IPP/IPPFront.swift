package import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOFoundationEssentialsCompat
package import ReceiptKit

/// The IPP front, a part of the daemon: every configured printer answers IPP at
/// `ipp://HOST:PORT/ipp/print/NAME` on a listener of its own (`ippPort`), as an IPP Everywhere /
/// AirPrint roll printer. Requests are read and answers written by libcups (``IPPCodec``); jobs
/// go into the one durable queue, so an IPP job prints once, in order, held while the printer is
/// out of paper, like any other. It has what it needs and nothing more: the configuration, the
/// store, the printers' IPP descriptions and what their workers hold.
package struct IPPFront: Sendable {
  let configuration: ReceiptServer.Configuration
  let store: any JobStore
  let logger: Logger
  /// Every printer as an IPP Everywhere printer, by name.
  let printers: [String: IPPPrinter]
  /// When the daemon started (IPP's clock).
  let startedAt: Date
  /// Why a printer's worker holds its queue (paper out, cover open), nil while it can print.
  let hold: @Sendable (String) -> PrinterStatus?
  /// TLS on the listener (`ipps://`).
  let security: IPPSecurity

  init(
    configuration: ReceiptServer.Configuration, store: any JobStore, logger: Logger, startedAt: Date = Date(),
    security: IPPSecurity = IPPSecurity(), hold: @escaping @Sendable (String) -> PrinterStatus?
  ) {
    self.configuration = configuration
    self.security = security
    self.store = store
    self.logger = logger
    self.startedAt = startedAt
    self.hold = hold
    let machine =
      (try? String(contentsOfFile: "/etc/machine-id", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
      ?? ProcessInfo.processInfo.hostName
    printers = Dictionary(configuration.ippPrinters.map { ($0.name, IPPPrinter($0, machine: machine)) }) { a, _ in
      a
    }
  }
}

extension IPPFront {
  /// Seconds a job created without its document (Create-Job) waits for it (Send-Document).
  static let heldTimeout = 60

  /// The machine's name, as DNS-SD advertises it (`NAME.local`) and the self-made certificate
  /// names it.
  static var hostName: String {
    ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "receipt"
  }

  /// The listener's TLS as configured (its certificate read, or made and kept); an error says
  /// what to fix.
  static func security(_ configuration: ReceiptServer.Configuration) throws -> IPPSecurity {
    guard let ipp = configuration.ipp else { return IPPSecurity() }
    do {
      return try IPPSecurity(ipp, directory: configuration.tlsDirectory, host: hostName)
    } catch let error as TLSSetupError {
      throw ReceiptError(.data, error.description)
    }
  }

  /// The IPP listener's application (nil when IPP is off).
  func application(onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> (
    any ApplicationProtocol
  )? {
    guard let ipp = configuration.ipp else { return nil }
    let router = Router(context: IPPRequestContext.self)
    // DNS rebinding: only this listener's names in `Host` (421 otherwise), as on the API.
    router.middlewares.add(HostMiddleware(ipp: ipp, aliases: configuration.hostNames))
    router.post("ipp/print/:name") { request, context in
      try await self.answer(request, printer: context.parameters.require("name"), secure: context.isEncrypted())
    }
    router.post("ipp/print") { request, context in
      try await self.answer(request, printer: nil, secure: context.isEncrypted())
    }
    router.get("ipp/print/:name/icon.png") { _, context in
      try self.icon(printer: context.parameters.require("name"), size: 128)
    }
    router.get("ipp/print/:name/icons/:file") { _, context in
      let file = try context.parameters.require("file")
      guard file.hasSuffix(".png"), let size = Int(file.dropLast(4)) else { throw HTTPError(.notFound) }
      return try self.icon(printer: context.parameters.require("name"), size: size)
    }
    router.get("ipp/print/:name") { request, context in
      try await self.ippStatusPage(context.parameters.require("name"), request)
    }
    router.get("/") { request, _ in try await self.ippStatusPage(nil, request) }
    let registry = ConnectionRegistry(maxConnections: configuration.maxConnections)
    let headerTimeout = TimeAmount.milliseconds(Int64(configuration.headerTimeout * 1000))
    let http1 = HTTP1Channel.Configuration(
      additionalChannelHandlers: [
        ConnectionGuard(registry: registry, headerTimeout: headerTimeout), ExpectContinueHandler(),
      ], idleTimeout: .milliseconds(Int64(configuration.idleTimeout * 1000)))
    return Application(
      router: router, server: .ipp(http1, security: security),
      configuration: .init(
        address: .hostname(ListenAddress.bindHost(ipp.host), port: ipp.port), serverName: "receipt",
        // Beyond maxConnections ConnectionGuard closes idle or stalled connections to make room;
        // the hard cap only protects file descriptors.
        availableConnectionsDelegate: MaximumAvailableConnections(configuration.maxConnections * 4, logger: logger)),
      onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? 0) }, logger: logger)
  }

  /// One IPP request: HTTP POST of `application/ipp`, the answer always HTTP 200 with the IPP
  /// status inside (RFC 8010); transport faults (a body over the limit, another content type)
  /// are HTTP errors. The attributes are read as they arrive and checked (``IPPFrameScanner``)
  /// before libcups sees them; the document after them goes to a spool file as it arrives
  /// (``IPPDocument``), never whole into memory.
  private func answer(_ request: Request, printer name: String?, secure: Bool) async throws -> Response {
    guard let ipp = configuration.ipp else { throw HTTPError(.notFound) }
    guard request.headers[.contentType]?.lowercased().hasPrefix("application/ipp") == true else {
      throw HTTPError(.unsupportedMediaType, message: "IPP requests are POSTed as application/ipp")
    }
    var body = request.body.makeAsyncIterator()
    var attributes = Data()
    var scanner = IPPFrameScanner(limit: IPPCodec.maxAttributeBytes)
    var framing = IPPFrameScanner.Result.needMore
    while framing == .needMore, let chunk = try await body.next() {
      attributes.append(contentsOf: chunk.readableBytesView)
      framing = scanner.scan(attributes)
    }
    guard case .complete(let length) = framing else {
      // Not an IPP message receipt reads: answered at once (the rest of the body is read and
      // dropped as it comes, never kept, so the client gets the answer).
      let why: String
      if case .invalid(let reason) = framing { why = reason } else { why = "the request ends inside its attributes" }
      return try Self.ippResponse(Self.ippAnswer(.badRequest, requestID: 1, message: why))
    }
    let spool = try IPPDocument.Spool(directory: Self.spoolDirectory, limit: ipp.maxDocumentBytes)
    // Over the bound: answered at once (the rest is read and dropped, never kept).
    let tooLarge = HTTPError(.contentTooLarge, message: "the document is over \(ipp.maxDocumentBytes) bytes")
    guard try attributes.dropFirst(length).withUnsafeBytes({ try spool.append($0) }) else { throw tooLarge }
    while let chunk = try await body.next() {
      guard try chunk.withUnsafeReadableBytes({ try spool.append($0) }) else { throw tooLarge }
    }
    let host = request.head.authority ?? "\(ipp.host):\(ipp.port)"
    let answer: IPPMessage
    do {
      let (message, _) = try IPPCodec.decode(attributes.prefix(length))
      let via = IPPVia(host: host, secure: secure)
      answer = await respond(to: message, document: spool.document(), printer: name, via: via)
    } catch {
      // Not an IPP message at all: an IPP answer with no request id to echo.
      answer = Self.ippAnswer(.badRequest, requestID: 1, message: "\(error)")
    }
    return try Self.ippResponse(answer)
  }

  /// A printer's icon of one size (404 for another printer or size).
  private func icon(printer name: String, size: Int) throws -> Response {
    guard printers[name] != nil, let png = IPPIcon.png(size: size) else { throw HTTPError(.notFound) }
    return Response(status: .ok, headers: [.contentType: "image/png"], body: .init(byteBuffer: ByteBuffer(bytes: png)))
  }

  /// Where IPP documents are spooled while they arrive (unnamed files: nothing stays there).
  static var spoolDirectory: String { ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp" }

  /// An IPP answer as HTTP: 200, `application/ipp`.
  static func ippResponse(_ answer: IPPMessage) throws -> Response {
    let bytes = try IPPCodec.encode(answer)
    return Response(
      status: .ok, headers: [.contentType: "application/ipp"], body: .init(byteBuffer: ByteBuffer(data: bytes)))
  }

  /// The answer to a read request.
  private func respond(to message: IPPMessage, document: IPPDocument, printer name: String?, via: IPPVia) async
    -> IPPMessage
  {
    var answer = await answer(to: message, document: document, printer: name, via: via)
    // The answer speaks the request's version when the printer does (RFC 8011 4.1.8), else 1.1.
    answer.version = IPPRequest.versions.contains(message.version) ? message.version : 11
    return answer
  }

  private func answer(to message: IPPMessage, document: IPPDocument, printer name: String?, via: IPPVia) async
    -> IPPMessage
  {
    do {
      let request = try IPPRequest(message: message, document: document)
      guard let operation = IPPOperation(rawValue: request.operation) else {
        throw IPPFailure(.operationNotSupported, "operation 0x\(String(request.operation, radix: 16)) is not supported")
      }
      let printer = try ippPrinter(request, path: name)
      let context = IPPContext(printer: printer, via: via, request: request)
      var answer = try await perform(operation, context)
      answer.requestID = message.requestID
      return answer
    } catch let failure as IPPFailure {
      var answer = Self.ippAnswer(failure.status, requestID: message.requestID, message: failure.message)
      if !failure.unsupported.isEmpty { answer.groups.append(IPPAttributeGroup(.unsupported, failure.unsupported)) }
      return answer
    } catch let error as StoreUnavailable {
      return Self.ippAnswer(
        .serviceUnavailable, requestID: message.requestID, message: "the queue is unavailable: \(error)")
    } catch {
      logger.error("IPP request failed: \(error)")
      return Self.ippAnswer(.internalError, requestID: message.requestID, message: "\(error)")
    }
  }

  /// The printer a request is for: its `printer-uri`'s path (or the path it was posted to).
  private func ippPrinter(_ request: IPPRequest, path: String?) throws -> IPPPrinter {
    var name = path
    if let uri = request.operationAttribute("printer-uri")?.string ?? request.operationAttribute("job-uri")?.string {
      guard let url = URL(string: uri), ["ipp", "ipps", "http", "https"].contains(url.scheme ?? "") else {
        throw IPPFailure(.badRequest, "printer-uri \(uri) is not an ipp: URI")
      }
      let parts = url.path.split(separator: "/").map(String.init)
      guard parts.count >= 2, parts[0] == "ipp", parts[1] == "print" else {
        throw IPPFailure(.notFound, "no printer at \(url.path); printers are at /ipp/print/NAME")
      }
      name = parts.count >= 3 ? parts[2] : configuration.effectiveDefaultPrinter
    } else {
      throw IPPFailure(.badRequest, "the request has no printer-uri")
    }
    guard let name, let printer = printers[name] else {
      throw IPPFailure(.notFound, "no printer named \(name ?? "") here")
    }
    return printer
  }

  /// An answer: a status, the operation group every answer has, and a message.
  static func ippAnswer(_ status: IPPStatus, requestID: Int32, message: String? = nil) -> IPPMessage {
    var attributes = [
      IPPAttribute("attributes-charset", .charset("utf-8")),
      IPPAttribute("attributes-natural-language", .naturalLanguage("en")),
    ]
    if let message, !message.isEmpty {
      attributes.append(IPPAttribute("status-message", .text(String(message.prefix(255)))))
    }
    return IPPMessage(
      version: 20, code: status.rawValue, requestID: requestID, groups: [IPPAttributeGroup(.operation, attributes)])
  }
}

/// How a client reached the listener: the host it named (`Host`) and whether over TLS.
struct IPPVia: Sendable {
  let host: String
  let secure: Bool
}

/// What an operation works with: its printer, how the client reached it (for URIs), and the
/// request.
struct IPPContext {
  let printer: IPPPrinter
  let via: IPPVia
  let request: IPPRequest

  /// The printer's URI as this client reaches it (`ipps://` over TLS).
  var printerURI: String { "\(via.secure ? "ipps" : "ipp")://\(via.host)/ipp/print/\(printer.name)" }
  /// The printer's web page (status, supplies) and icon, over TLS when the client came so.
  var pageURI: String { "\(via.secure ? "https" : "http")://\(via.host)/ipp/print/\(printer.name)" }
}

extension IPPFront {
  /// An IPP request read, checked and answered as far as no queue is needed (the request frame,
  /// its job ticket against `printer`, the printer's fixed attributes written back): for the
  /// fuzzer and tests. Nil when the bytes are no IPP message.
  package static func checkRequest(_ bytes: Data, printer config: PrinterConfig) -> Data? {
    guard let (message, offset) = try? IPPCodec.decode(bytes) else { return nil }
    let printer = IPPPrinter(config, machine: "fuzz")
    var answer = ippAnswer(.ok, requestID: message.requestID)
    do {
      let request = try IPPRequest(message: message, document: IPPDocument(bytes.dropFirst(offset)))
      let ticket = try IPPJobTicket(request, printer: printer, templates: ["receipt"])
      answer.groups.append(IPPAttributeGroup(.unsupported, ticket.unsupported))
      answer.groups.append(
        IPPAttributeGroup(
          .printer,
          printer.fixedAttributes(
            uris: ["ipp://h/ipp/print/p"], moreInfo: "http://h/", started: Date())
        ))
      if let id = try? request.jobID() {
        answer.groups.append(IPPAttributeGroup(.job, [IPPAttribute("job-id", .integer(Int32(truncatingIfNeeded: id)))]))
      }
    } catch let failure as IPPFailure {
      answer = ippAnswer(failure.status, requestID: message.requestID, message: failure.message)
      answer.groups.append(IPPAttributeGroup(.unsupported, failure.unsupported))
    } catch {
      return nil
    }
    // The request's own attributes written back too: libcups writes what it read.
    answer.groups += message.groups
    return try? IPPCodec.encode(answer)
  }
}
