import Foundation
import HTTPTypes
import Hummingbird
import ReceiptKit

/// The API's answers as types: the one place a job's JSON fields are named (the OpenAPI file
/// says the same, and `OpenAPIContractTests` checks the two agree).
struct JobResponse: Codable, Equatable {
  var id: String
  var sequence: Int64
  var printer: String
  var template: String
  var state: Job.State
  var attempts: Int
  var copies: Int
  var locale: String?
  var createdAt: String
  var updatedAt: String
  var error: String?
  var cupsJobId: Int?
  var printerState: String?
  var orderId: String?
  var route: String?
  /// The printer a failed-over ticket was meant for, and why it printed elsewhere.
  var fallbackFor: String?
  var failoverReason: String?
  var reprintOf: String?
  /// Which reprint of `reprintOf` this is (absent for originals).
  var reprint: Int?
  /// SHA-256 of the archived PDF (`GET /v1/jobs/{id}/document.pdf`).
  var documentSha256: String?
  /// Raw printers: when the job was last sent, the process ID the printer confirms it with, and
  /// how many earlier prints were interrupted or not confirmed (absent when none).
  var sentAt: String?
  var processId: String?
  var interruptions: Int?
  /// While printing: `rendering` (the job's own work) or `printer` (handed to its printer).
  var stage: Job.Stage?
  /// Stops of the daemon while it rendered this job (absent when none).
  var crashes: Int?
  /// A document job's format, name and user (IPP), absent for orders.
  var documentFormat: String?
  var jobName: String?
  var user: String?
  /// An e-receipt's address.
  var email: String?

  init(_ job: Job) {
    email = job.recipient
    documentFormat = job.documentFormat?.rawValue
    jobName = job.jobName
    user = job.user
    stage = job.state == .printing ? job.stage : nil
    crashes = job.crashes > 0 ? job.crashes : nil
    sentAt = job.sentAt?.formatted(.iso8601)
    processId = job.processID
    interruptions = job.interruptions > 0 ? job.interruptions : nil
    orderId = job.orderID
    route = job.route
    fallbackFor = job.fallbackFor
    failoverReason = job.failoverReason
    reprintOf = job.reprintOf
    reprint = job.reprint > 0 ? job.reprint : nil
    documentSha256 = job.documentSHA256
    id = job.id
    sequence = job.sequence
    printer = job.printer
    template = job.template
    state = job.state
    attempts = job.attempts
    copies = job.copies
    locale = job.locale
    createdAt = job.createdAt.formatted(.iso8601)
    updatedAt = job.updatedAt.formatted(.iso8601)
    error = job.error
    cupsJobId = job.cupsJobID
    printerState = job.printerState
  }
}

/// `POST /v1/orders` and `GET /v1/orders/{id}`: an order and its tickets.
struct OrderResponse: Codable {
  var id: String
  var state: String
  var locale: String?
  var createdAt: String
  var tickets: [JobResponse]

  init(_ order: Order, jobs: [Job]) {
    id = order.id
    state = Order.state(of: jobs)
    locale = order.locale
    createdAt = order.createdAt.formatted(.iso8601)
    tickets = jobs.map(JobResponse.init)
  }
}

/// `GET /v1/jobs`: a page of jobs, newest first; `next` is the cursor of the next page.
struct JobListResponse: Codable {
  var jobs: [JobResponse]
  var next: String?
}

/// One printer of `GET /v1/printers`.
struct PrinterResponse: Codable, Equatable {
  var name: String
  var target: String
  var queued: Int
  var printing: Int
  /// idle, processing, stopped, rejecting, unavailable, missing, unreachable or unknown.
  var state: String
  var reasons: [String]
  /// With PostgreSQL, the daemon that drives the printer.
  var owner: String?
  /// A printer that polls (CloudPRNT): when it last did.
  var lastPoll: Date?
}

/// `GET /v1/printers`.
struct PrinterListResponse: Codable {
  var printers: [PrinterResponse]
}

/// `GET /v1/templates`.
struct TemplateListResponse: Codable {
  var templates: [String]
}

/// `GET /healthz` and `GET /readyz`.
struct StatusResponse: Codable {
  var status: String
}

/// The body of every error answer (RFC 9457).
struct ProblemResponse: Codable {
  var type = "about:blank"
  var title: String
  var status: Int
  var detail: String
  var field: String?
  /// Where in the template (or the order) the error is, for templates and order data.
  var location: ProblemLocation?
}

/// A place in a template or an order: file, line and column (1-based).
struct ProblemLocation: Codable, Equatable {
  var file: String
  var line: Int
  var column: Int
}

/// A JSON response (keys sorted, so answers are byte-stable).
func json(_ value: some Encodable, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
  var headers = headers
  if headers[.contentType] == nil { headers[.contentType] = "application/json" }
  let data = Data(encodedJSON(value).utf8)
  return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
}

/// A value as the API's JSON text: keys sorted, one line (also the `data:` of an event).
func encodedJSON(_ value: some Encodable) -> String {
  let encoder = JSONEncoder()
  encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
  return String(decoding: (try? encoder.encode(value)) ?? Data(), as: UTF8.self)
}

extension ReceiptError {
  /// The HTTP answer for a pipeline error: bad input is 422 (the request's `field`), a printer
  /// or store out of reach 503, and a layout, render or write failure 500 with the reason.
  var problem: Problem { problem(source: false) }

  /// The answer; a template error names its place (`location`) and the field at fault: `data`
  /// for the order, `source` for a template sent as text, else `template`.
  func problem(source: Bool) -> Problem {
    switch stage {
    case .input, .data:
      guard let error = underlying as? TemplateError, error.line > 0 else {
        return Problem.unprocessable(message, field: "data")
      }
      var problem = Problem.unprocessable(
        message, field: error.file == "order" ? "data" : source ? "source" : "template")
      problem.location = ProblemLocation(file: error.file, line: error.line, column: error.column)
      return problem
    case .printer, .unavailable, .job:
      return Problem.unavailable(message)
    case .layout:
      return Problem(status: .internalServerError, title: "Layout failed", detail: message)
    case .render, .output:
      return Problem(status: .internalServerError, title: "Render failed", detail: message)
    }
  }
}
