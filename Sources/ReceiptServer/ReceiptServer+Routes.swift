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
    router.get("readyz") { _, _ in try self.ready() }
    router.get("metrics") { _, _ in
      Response(
        status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
        body: .init(byteBuffer: ByteBuffer(string: self.metrics.exposition(counts: try self.store.counts()))))
    }
  }

  /// The request body as a JSON object, within the size limit.
  private func body(_ request: Request, _ context: BasicRequestContext) async throws -> [String: Any] {
    let buffer: ByteBuffer
    do {
      buffer = try await request.body.collect(upTo: configuration.maxBodyBytes)
    } catch {
      throw Problem(
        status: .contentTooLarge, title: "Content too large",
        detail: "the body exceeds \(configuration.maxBodyBytes) bytes")
    }
    guard let object = try? JSONSerialization.jsonObject(with: Data(buffer: buffer)) as? [String: Any] else {
      throw Problem.badRequest("the body must be a JSON object")
    }
    return object
  }

  /// POST /v1/jobs: stored durably before 202; the same Idempotency-Key returns the same job.
  private func submit(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
    let object = try await body(request, context)
    let job = try parseJob(object)
    let key = request.headers[.init("Idempotency-Key")!]
    if let key, key.count > 200 {
      throw Problem.badRequest("Idempotency-Key is longer than 200 characters", field: "Idempotency-Key")
    }
    let (stored, created) = try store.submit(job, idempotencyKey: key, now: Date())
    if !created, stored.printer != job.printer || stored.template != job.template || stored.data != job.data {
      throw Problem.conflict("Idempotency-Key \(key ?? "") was used for a different job (\(stored.id))")
    }
    return json(jobJSON(stored), status: created ? .accepted : .ok, headers: [.location: "/v1/jobs/\(stored.id)"])
  }

  /// Validates a job request: known template and printer, data an object, copies 1…99.
  private func parseJob(_ object: [String: Any]) throws -> JobRequest {
    guard let template = object["template"] as? String, !template.isEmpty else {
      throw Problem.badRequest("template is required (a name in the templates directory)", field: "template")
    }
    guard (try? TemplateLibrary(directory: configuration.templates).templateNames().contains(template)) == true else {
      throw Problem.unprocessable("no template named '\(template)'", field: "template")
    }
    guard let data = object["data"] as? [String: Any] else {
      throw Problem.badRequest("data is required: the order as a JSON object", field: "data")
    }
    let printer = (object["printer"] as? String) ?? configuration.effectiveDefaultPrinter ?? ""
    guard configuration.printers.contains(where: { $0.name == printer }) else {
      throw Problem.unprocessable(
        "no printer named '\(printer)'; printers: \(configuration.printers.map(\.name).joined(separator: ", "))",
        field: "printer")
    }
    let copies = (object["copies"] as? Int) ?? 1
    guard (1...99).contains(copies) else { throw Problem.badRequest("copies must be 1…99", field: "copies") }
    let locale = object["locale"] as? String
    let bytes = try JSONSerialization.data(withJSONObject: data, options: [.sortedKeys])
    guard bytes.count <= JSONValue.maxBytes else { throw Problem.badRequest("data is too large", field: "data") }
    return JobRequest(printer: printer, template: template, data: bytes, locale: locale, copies: copies)
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
    let limit = min(max(Int(query.get("limit") ?? "") ?? 50, 1), 500)
    let cursor = query.get("cursor").flatMap { Int64($0) }
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
    let object = try await body(request, context)
    let format = OutputFormat(rawValue: request.uri.queryParameters.get("format") ?? "pdf")
    guard let format, [.pdf, .png, .pwg].contains(format) else {
      throw Problem.badRequest("format must be pdf, png or pwg", field: "format")
    }
    let job = try parseJob(object.merging(["printer": configuration.effectiveDefaultPrinter ?? ""]) { mine, _ in mine })
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
        return [
          "name": printer.name, "target": printer.target.description, "queued": states["queued"] ?? 0, "printing": states["printing"] ?? 0,
        ]
      }
    ])
  }

  private func templateList() throws -> Response {
    json(["templates": try TemplateLibrary(directory: configuration.templates).templateNames()])
  }

  private func ready() throws -> Response {
    _ = try store.counts()  // the database answers
    return json(["status": "ready"])
  }

  func jobJSON(_ job: Job) -> [String: Any] {
    let iso = ISO8601DateFormatter()
    var object: [String: Any] = [
      "id": job.id, "sequence": job.sequence, "printer": job.printer, "template": job.template,
      "state": job.state.rawValue,
      "attempts": job.attempts, "copies": job.copies, "createdAt": iso.string(from: job.createdAt),
      "updatedAt": iso.string(from: job.updatedAt),
    ]
    if let error = job.error { object["error"] = error }
    if let id = job.cupsJobID { object["cupsJobId"] = id }
    if let reasons = job.printerState { object["printerState"] = reasons }
    if let locale = job.locale { object["locale"] = locale }
    return object
  }
}

/// A JSON response.
func json(_ object: [String: Any], status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
  var headers = headers
  headers[.contentType] = "application/json"
  let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
  return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
}
