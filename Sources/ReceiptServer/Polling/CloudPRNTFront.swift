import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ReceiptKit

/// The Star CloudPRNT server, a part of the daemon on the API's listener at `/cloudprnt` (the
/// URL a printer's CloudPRNT settings name): a printer `POST`s its status and is told whether a
/// job waits, `GET`s the job in a media type it chose, and confirms it with `DELETE` (or a `GET`
/// with `delete`) and a code (Star CloudPRNT Protocol Guide, "CloudPRNT HTTP Method"). Each
/// printer is known by its MAC address and must send its HTTP Basic credentials; an unknown
/// device or wrong credentials get 401 and nothing else. The queue's rules are the worker's
/// (``PrintWorker/printPolled(_:)``); this part only answers the device.
struct CloudPRNTFront: Sendable {
  let polled: PolledPrinters
  let store: any JobStore
  let logger: Logger
  let authentication: PrinterAuthentication
  /// The path printers are pointed at.
  static let path = "cloudprnt"
  /// The largest poll body taken (a poll is a few hundred bytes; client action results more).
  static let maxPollBytes = 64 << 10

  func add(to router: Router<BasicRequestContext>) {
    guard polled.any("cloudprnt:") else { return }
    router.post(RouterPath(stringLiteral: Self.path)) { request, _ in try await self.poll(request) }
    router.get(RouterPath(stringLiteral: Self.path)) { request, _ in
      request.uri.queryParameters["delete"] != nil
        || request.uri.query?.split(separator: "&").contains("delete") == true
        ? try self.confirm(request) : try await self.fetch(request)
    }
    router.delete(RouterPath(stringLiteral: Self.path)) { request, _ in try self.confirm(request) }
  }

  /// The printer a request comes from, by its MAC address and credentials; nil (answer
  /// ``PrinterAuthentication/challenge()``) otherwise.
  private func printer(mac: String?, _ request: Request) -> PrinterConfig? {
    guard let mac, let normalized = CloudPRNTPrinter.Address.normalized(mac),
      let printer = polled.printer(device: "cloudprnt:" + normalized), let credentials = printer.credentials,
      authentication.accepts(request, credentials: credentials)
    else {
      logger.warning(
        "CloudPRNT request from an unknown device or with wrong credentials (mac \(IPPRequest.printable(mac ?? "none", limit: 64)))"
      )
      return nil
    }
    return printer
  }

  /// `POST`: the poll. Records the status; answers `jobReady` with the offer's media types and
  /// token while the printer should fetch it; asks once for the client's type, version and poll
  /// interval (`clientAction`).
  private func poll(_ request: Request) async throws -> Response {
    let raw = try await RequestBody.json(request, limit: Self.maxPollBytes)
    guard let body = try? JSONSerialization.jsonObject(with: raw) as? [String: Any] else {
      throw Problem.badRequest("a CloudPRNT poll is a JSON object")
    }
    guard let printer = self.printer(mac: body["printerMAC"] as? String, request) else {
      return authentication.challenge()
    }
    let status = CloudPRNTStatus(statusCode: body["statusCode"] as? String ?? "", status: body["status"] as? String)
    var client: [String: String] = [:]
    for action in body["clientAction"] as? [[String: Any]] ?? [] {
      guard let name = action["request"] as? String else { continue }
      client[name] = (action["result"]).map { "\($0)" } ?? ""
    }
    if !client.isEmpty {
      let described = client.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ")
      logger.info("CloudPRNT printer \(printer.name): \(IPPRequest.printable(described))")
    }
    let (token, knowsClient) = polled.polled(printer.name, status: status.printerStatus, client: client, now: Date())
    var answer = PollAnswer(jobReady: token != nil)
    if let token {
      answer.mediaTypes = polled.current(printer.name, token: token)?.mediaTypes ?? CloudPRNTPrinter.mediaTypes
      answer.jobToken = token
    }
    if !knowsClient {
      answer.clientAction = ["ClientType", "ClientVersion", "GetPollInterval"].map { PollAnswer.Action(request: $0) }
    }
    return json(answer)
  }

  /// `GET`: the offered job in the media type asked for; recorded as sent before its bytes go.
  private func fetch(_ request: Request) async throws -> Response {
    let query = request.uri.queryParameters
    guard let printer = self.printer(mac: query["mac"].map(String.init), request) else {
      return authentication.challenge()
    }
    let type = query["type"].map(String.init) ?? CloudPRNTPrinter.mediaTypes[0]
    guard let token = query["token"].map(String.init) ?? polled.current(printer.name, token: nil)?.token,
      polled.current(printer.name, token: token) != nil
    else {
      throw Problem(status: .notFound, title: "Not Found", detail: "no job is offered to this printer with that token")
    }
    let offered = polled.current(printer.name, token: token)?.mediaTypes ?? []
    guard offered.contains(type) else {
      throw Problem.unsupportedMediaType("this job is offered as \(offered.joined(separator: ", "))")
    }
    guard let (document, drawn, first) = polled.fetched(printer.name, token: token, type: type) else {
      throw Problem(status: .notFound, title: "Not Found", detail: "the job was withdrawn")
    }
    if first {
      // Recorded before the first byte goes: from now on the job may print.
      do { _ = try await store.recordSent(drawn) } catch {
        polled.confirmed(printer.name, token: token, .failed("the queue could not record the fetch: \(error)"))
        throw Problem(status: .serviceUnavailable, title: "Unavailable", detail: "the queue cannot record the job")
      }
      logger.info("CloudPRNT printer \(printer.name) fetched job \(drawn.id) as \(type)")
    }
    return Response(
      status: .ok, headers: [.contentType: type], body: .init(byteBuffer: ByteBuffer(bytes: document)))
  }

  /// `DELETE` (or `GET` with `delete`): the device's confirmation of a job, by its token.
  private func confirm(_ request: Request) throws -> Response {
    let query = request.uri.queryParameters
    guard let printer = self.printer(mac: query["mac"].map(String.init), request) else {
      return authentication.challenge()
    }
    let code = query["code"].map(String.init) ?? ""
    let confirmation = PolledConfirmation(cloudPRNTCode: code)
    let token = query["token"].map(String.init)
    if polled.confirmed(printer.name, token: token, confirmation) {
      logger.info(
        "CloudPRNT printer \(printer.name) confirmed \(token ?? "its job"): \(IPPRequest.printable(code.removingPercentEncoding ?? code, limit: 64))"
      )
    }
    return Response(status: .ok)
  }
}

/// The answer to a poll (Star CloudPRNT Protocol Guide, "JSON Response").
struct PollAnswer: Encodable {
  struct Action: Encodable {
    var request: String
    var options = ""
  }
  var jobReady: Bool
  var mediaTypes: [String]?
  var jobToken: String?
  var clientAction: [Action]?
}
