import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ReceiptKit

/// The Epson Server Direct Print server, a part of the daemon on the API's listener at
/// `/epson-sdp` (the URL of a printer's Server Direct Print settings): the printer `POST`s
/// `ConnectionType=GetRequest&ID=…` (form data) and is answered its offered job as ePOS-Print
/// XML in a `<PrintRequestInfo>` (or an empty body: nothing to print), then `POST`s
/// `ConnectionType=SetResponse&ID=…&ResponseFile=…` with the result (Epson Server Direct Print
/// User's Manual, "Request and Response"). Known by its ID, authenticated by Basic or Digest;
/// an unknown ID or wrong credentials get 401 and nothing else.
struct EpsonSDPFront: Sendable {
  let polled: PolledPrinters
  let store: any JobStore
  let logger: Logger
  let authentication: PrinterAuthentication
  /// The path printers are pointed at.
  static let path = "epson-sdp"
  /// The largest request taken (a result is a few KiB; the manual's limit for print data is 2 MB).
  static let maxBytes = 1 << 20

  func add(to router: Router<BasicRequestContext>) {
    guard polled.any("epson-sdp:") else { return }
    router.post(RouterPath(stringLiteral: Self.path)) { request, _ in try await self.handle(request) }
  }

  private func handle(_ request: Request) async throws -> Response {
    let form = try await Self.form(request)
    let id = form["ID"] ?? ""
    guard EpsonSDPPrinter.Address.isValid(id), let printer = polled.printer(device: "epson-sdp:" + id),
      let credentials = printer.credentials, authentication.accepts(request, credentials: credentials)
    else {
      logger.warning(
        "Server Direct Print request from an unknown printer or with wrong credentials (ID \(IPPRequest.printable(id, limit: 64)))"
      )
      return authentication.challenge()
    }
    switch form["ConnectionType"] {
    case "GetRequest": return try await offer(printer)
    case "SetResponse": return result(printer, form["ResponseFile"] ?? "")
    default: throw Problem.badRequest("ConnectionType is GetRequest or SetResponse")
    }
  }

  /// `GetRequest`: the offered job, recorded as sent before its bytes go; empty when none.
  private func offer(_ printer: PrinterConfig) async throws -> Response {
    let (token, _) = polled.polled(printer.name, status: nil, now: Date())
    guard let token, let (document, drawn, first) = polled.fetched(printer.name, token: token) else {
      return Response(status: .ok, headers: [.contentType: "text/xml; charset=utf-8"])
    }
    if first {
      do { _ = try await store.recordSent(drawn) } catch {
        polled.confirmed(printer.name, token: token, .failed("the queue could not record the fetch: \(error)"))
        throw Problem(status: .serviceUnavailable, title: "Unavailable", detail: "the queue cannot record the job")
      }
      logger.info("Server Direct Print printer \(printer.name) fetched job \(drawn.id)")
    }
    var xml = #"<?xml version="1.0" encoding="utf-8"?>"# + "\n"
    xml += #"<PrintRequestInfo Version="2.00"><ePOSPrint><Parameter><devid>local_printer</devid>"#
    xml += "<timeout>60000</timeout><printjobid>\(token)</printjobid></Parameter><PrintData>"
    var body = Data(xml.utf8)
    body += document
    body += Data("</PrintData></ePOSPrint></PrintRequestInfo>".utf8)
    return Response(
      status: .ok, headers: [.contentType: "text/xml; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(bytes: body)))
  }

  /// `SetResponse`: each print request's result confirms the offer it names.
  private func result(_ printer: PrinterConfig, _ file: String) -> Response {
    guard let result = EpsonSDPResult(xml: Data(file.utf8)) else {
      logger.warning("Server Direct Print printer \(printer.name) sent a result that is not a PrintResponseInfo")
      return Response(status: .ok)
    }
    if !result.accepted {
      polled.confirmed(printer.name, token: nil, .refused("the printer refused the XML: \(result.error)"))
    }
    for print in result.prints {
      let status = EpsonSDPResult.printerStatus(bits: print.status, code: print.code)
      polled.reported(printer.name, status: status)
      let confirmation: PolledConfirmation =
        print.success
        ? .printed
        : ["SchemaError", "DeviceNotFound"].contains(print.code)
          ? .refused(print.code) : .failed(print.code.isEmpty ? status.message : print.code)
      if polled.confirmed(printer.name, token: print.jobID, confirmation) {
        logger.info(
          "Server Direct Print printer \(printer.name) reported \(print.jobID): \(print.success ? "printed" : print.code)"
        )
      }
    }
    return Response(status: .ok)
  }

  /// The request's form fields (`application/x-www-form-urlencoded`, `+` for spaces).
  static func form(_ request: Request) async throws -> [String: String] {
    let type = request.headers[.contentType]?.lowercased() ?? ""
    guard type.hasPrefix("application/x-www-form-urlencoded") else {
      throw Problem.unsupportedMediaType("Server Direct Print requests are application/x-www-form-urlencoded")
    }
    let body: ByteBuffer
    do { body = try await request.body.collect(upTo: maxBytes) } catch {
      throw Problem(status: .contentTooLarge, title: "Content too large", detail: "the body exceeds \(maxBytes) bytes")
    }
    var fields: [String: String] = [:]
    for pair in String(buffer: body).split(separator: "&") {
      let parts = pair.split(separator: "=", maxSplits: 1).map {
        $0.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
      }
      if let name = parts.first { fields[name] = parts.count > 1 ? parts[1] : "" }
    }
    return fields
  }
}
