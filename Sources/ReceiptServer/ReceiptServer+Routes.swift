import Foundation
import Hummingbird
import ReceiptKit

extension ReceiptServer {
  func addRoutes(to router: Router<BasicRequestContext>) {
    let v1 = router.group("v1")
    v1.post("jobs") { request, context in try await self.submit(request, context) }
    v1.get("jobs") { request, _ in try self.list(request) }
    v1.get("jobs/:id") { _, context in try self.show(context.parameters.require("id")) }
    v1.delete("jobs/:id") { _, context in try self.cancel(context.parameters.require("id")) }
    v1.post("jobs/:id/retry") { _, context in try self.retry(context.parameters.require("id")) }
    v1.post("render") { request, context in try await self.render(request, context) }
    v1.get("printers") { _, _ in try self.printers() }
    v1.get("templates") { _, _ in try self.templateList() }
    router.get("healthz") { _, _ in json(["status": "ok"]) }
    router.get("openapi.yaml") { _, _ in
      Response(
        status: .ok, headers: [.contentType: "application/yaml"],
        body: .init(byteBuffer: ByteBuffer(bytes: ReceiptServer.openAPIDocument)))
    }
    router.get("readyz") { _, _ in try self.ready() }
    router.get("metrics") { _, _ in
      Response(
        status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
        body: .init(byteBuffer: ByteBuffer(string: self.metrics.exposition(counts: try self.store.counts()))))
    }
  }

  /// The request body as a JSON object, within the size limit.
  private func body(_ request: Request, _ context: BasicRequestContext) async throws -> (Data, [String: Any]) {
    let buffer: ByteBuffer
    do {
      buffer = try await request.body.collect(upTo: configuration.maxBodyBytes)
    } catch {
      throw Problem(
        status: .contentTooLarge, title: "Content too large",
        detail: "the body exceeds \(configuration.maxBodyBytes) bytes")
    }
    let data = Data(buffer: buffer)
    guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
      throw Problem.badRequest("the body must be a JSON object")
    }
    return (data, object)
  }

  /// POST /v1/jobs: stored durably before 202; the same Idempotency-Key returns the same job.
  private func submit(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
    let (raw, object) = try await body(request, context)
    let job = try parseJob(raw, object)
    let key = request.headers[.init("Idempotency-Key")!]
    if let key, key.isEmpty || key.count > 200 {
      throw Problem.badRequest("Idempotency-Key must be 1 to 200 characters", field: "Idempotency-Key")
    }
    let (stored, created) = try await store.accept(job, idempotencyKey: key)
    if !created, stored.printer != job.printer || stored.template != job.template || !sameJSON(stored.data, job.data) {
      throw Problem.conflict("Idempotency-Key \(key ?? "") was used for a different job (\(stored.id))")
    }
    return json(jobJSON(stored), status: created ? .accepted : .ok, headers: [.location: "/v1/jobs/\(stored.id)"])
  }

  /// The fields of a job request, for type checking (JSONDecoder refuses `"2"` or `true` for copies).
  private struct JobFields: Decodable {
    var template: String
    var printer: String?
    var copies: Int?
    var locale: String?
    static let names: Set = ["template", "data", "printer", "copies", "locale"]
  }

  /// Validates a job request: only known fields of the right types, a known template and
  /// printer, data an object, copies 1…99, a plausible locale.
  private func parseJob(_ raw: Data, _ object: [String: Any], printer fallback: String? = nil) throws -> JobRequest {
    if let unknown = object.keys.sorted().first(where: { !JobFields.names.contains($0) }) {
      throw Problem.badRequest(
        "unknown field '\(unknown)'; a job has \(JobFields.names.sorted().joined(separator: ", "))", field: unknown)
    }
    let fields: JobFields
    do {
      fields = try JSONDecoder().decode(JobFields.self, from: raw)
    } catch let DecodingError.keyNotFound(key, _) where key.stringValue == "template" {
      throw Problem.badRequest("template is required (a name in the templates directory)", field: "template")
    } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
      let field = context.codingPath.first?.stringValue ?? ""
      let types = ["template": "a string", "printer": "a string", "locale": "a string", "copies": "an integer"]
      throw Problem.badRequest("\(field) must be \(types[field] ?? "valid JSON")", field: field)
    } catch {
      throw Problem.badRequest("the body is not a valid job: \(error)")
    }
    guard !fields.template.isEmpty else {
      throw Problem.badRequest("template is required (a name in the templates directory)", field: "template")
    }
    guard (try? TemplateLibrary(directory: configuration.templates))?.isTemplate(fields.template) == true else {
      throw Problem.unprocessable("no template named '\(fields.template)'", field: "template")
    }
    guard let data = object["data"] as? [String: Any] else {
      throw Problem.badRequest("data must be the order as a JSON object", field: "data")
    }
    let printer = fields.printer ?? fallback ?? configuration.effectiveDefaultPrinter ?? ""
    guard configuration.printers.contains(where: { $0.name == printer }) else {
      throw Problem.unprocessable(
        "no printer named '\(printer)'; printers: \(configuration.printers.map(\.name).joined(separator: ", "))",
        field: "printer")
    }
    let copies = fields.copies ?? 1
    guard (1...99).contains(copies) else { throw Problem.badRequest("copies must be 1…99", field: "copies") }
    if let locale = fields.locale {
      guard (2...35).contains(locale.count),
        locale.allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "_" || $0 == "-") })
      else {
        throw Problem.badRequest("locale must be a locale identifier such as de_DE or ja-JP", field: "locale")
      }
    }
    // The order exactly as received (re-serializing it cost a fifth of a submission's CPU);
    // stored orders are compared as values, so key order and spacing do not matter.
    let bytes =
      try JSONMember.value(of: "data", in: raw).map { Data($0) } ?? JSONSerialization.data(withJSONObject: data)
    guard bytes.count <= JSONValue.maxBytes else { throw Problem.badRequest("data is too large", field: "data") }
    return JobRequest(printer: printer, template: fields.template, data: bytes, locale: fields.locale, copies: copies)
  }

  private func list(_ request: Request) throws -> Response {
    let query = request.uri.queryParameters
    var state: Job.State?
    if let s = query.get("state") {
      guard let parsed = Job.State(rawValue: s) else {
        throw Problem.badRequest(
          "state must be one of \(Job.State.allCases.map(\.rawValue).joined(separator: ", "))", field: "state")
      }
      state = parsed
    }
    var limit = 50
    if let text = query.get("limit") {
      guard let value = Int(text), (1...500).contains(value) else {
        throw Problem.badRequest("limit must be an integer from 1 to 500", field: "limit")
      }
      limit = value
    }
    var cursor: Int64?
    if let text = query.get("cursor") {
      guard let value = Int64(text), value > 0 else {
        throw Problem.badRequest("cursor must be the 'next' value of the previous page", field: "cursor")
      }
      cursor = value
    }
    let jobs = try store.jobs(state: state, printer: query.get("printer"), limit: limit, before: cursor)
    var object: [String: Any] = ["jobs": jobs.map(jobJSON)]
    if jobs.count == limit, let last = jobs.last { object["next"] = String(last.sequence) }
    return json(object)
  }

  private func show(_ id: String) throws -> Response {
    guard let job = try store.job(id) else { throw Problem.notFound("no job \(id)") }
    return json(jobJSON(job))
  }

  private func cancel(_ id: String) throws -> Response {
    guard let job = try store.cancel(id, now: Date()) else { throw Problem.notFound("no job \(id)") }
    guard job.state == .canceled else {
      throw Problem.conflict("job \(id) is \(job.state.rawValue); only queued jobs can be canceled")
    }
    return json(jobJSON(job))
  }

  private func retry(_ id: String) throws -> Response {
    guard let job = try store.retry(id, now: Date()) else { throw Problem.notFound("no job \(id)") }
    guard job.state == .queued else {
      throw Problem.conflict("job \(id) is \(job.state.rawValue); only failed or dead jobs are retried")
    }
    return json(jobJSON(job))
  }

  /// POST /v1/render?format=pdf|png|pwg: a synchronous preview, nothing queued.
  private func render(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
    let (raw, object) = try await body(request, context)
    let format = OutputFormat(rawValue: request.uri.queryParameters.get("format") ?? "pdf")
    guard let format, [.pdf, .png, .pwg].contains(format) else {
      throw Problem.badRequest("format must be pdf, png or pwg", field: "format")
    }
    let job = try parseJob(raw, object)
    let started = Date()
    do {
      let document = try engine.templateDocument(
        template: job.template, data: job.data, templates: configuration.templates,
        options: TemplateOptions(locale: job.locale)
      ).document
      let rendered = try engine.render(document, format: format)
      metrics.observeRender(seconds: Date().timeIntervalSince(started))
      let types: [OutputFormat: String] = [.pdf: "application/pdf", .png: "image/png", .pwg: "image/pwg-raster"]
      return Response(
        status: .ok, headers: [.contentType: types[format]!],
        body: .init(byteBuffer: ByteBuffer(bytes: rendered.parts[0])))
    } catch let error as ReceiptError {
      throw Problem.unprocessable(error.message, field: "data")
    }
  }

  private func printers() throws -> Response {
    let counts = try store.counts()
    return json([
      "printers": configuration.printers.map { printer -> [String: Any] in
        let states = counts[printer.name] ?? [:]
        let (state, reasons) = printerState(printer.target)
        return [
          "name": printer.name, "target": printer.target.description, "queued": states["queued"] ?? 0,
          "printing": states["printing"] ?? 0, "state": state, "reasons": reasons,
        ]
      }
    ])
  }

  /// What a printer is doing: CUPS' queue state and reasons; a directory's availability; a
  /// socket printer is not probed (`unknown`).
  private func printerState(_ target: PrinterTarget) -> (String, [String]) {
    switch target {
    case .cups(let queue, let server):
      do {
        let found = try engine.printer(named: queue, server: server)
        let reasons = (found.stateReasons.filter { $0 != "none" } + [found.stateMessage]).filter { !$0.isEmpty }
        return (found.acceptingJobs ? found.state : "rejecting", reasons)
      } catch let error as ReceiptError {
        return (error.isPermanent ? "missing" : "unreachable", [error.message])
      } catch {
        return ("unreachable", ["\(error)"])
      }
    case .directory(let url):
      return FileManager.default.isWritableFile(atPath: url.path)
        ? ("idle", []) : ("unavailable", ["\(url.path) is not a writable directory"])
    case .socket:
      return ("unknown", [])
    }
  }

  private func templateList() throws -> Response {
    json(["templates": try TemplateLibrary(directory: configuration.templates).templateNames()])
  }

  private func ready() throws -> Response {
    _ = try store.counts()  // the database answers
    return json(["status": "ready"])
  }

  func jobJSON(_ job: Job) -> [String: Any] {
    var object: [String: Any] = [
      "id": job.id, "sequence": job.sequence, "printer": job.printer, "template": job.template,
      "state": job.state.rawValue,
      "attempts": job.attempts, "copies": job.copies, "createdAt": job.createdAt.formatted(.iso8601),
      "updatedAt": job.updatedAt.formatted(.iso8601),
    ]
    if let error = job.error { object["error"] = error }
    if let id = job.cupsJobID { object["cupsJobId"] = id }
    if let reasons = job.printerState { object["printerState"] = reasons }
    if let locale = job.locale { object["locale"] = locale }
    return object
  }
}

/// Whether two JSON documents are the same value (key order aside).
func sameJSON(_ a: Data, _ b: Data) -> Bool {
  guard let x = try? JSONSerialization.jsonObject(with: a) as? NSDictionary,
    let y = try? JSONSerialization.jsonObject(with: b) as? NSDictionary
  else { return a == b }
  return x.isEqual(y)
}

/// A JSON response.
func json(_ object: [String: Any], status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
  var headers = headers
  headers[.contentType] = "application/json"
  let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
  return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
}
