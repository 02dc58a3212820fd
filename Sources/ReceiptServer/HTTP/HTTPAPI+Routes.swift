import Foundation
import HTTPTypes
import Hummingbird
import ReceiptKit

extension HTTPAPI {
  func addRoutes(to router: Router<BasicRequestContext>) {
    let v1 = router.group("v1")
    v1.post("jobs") { request, context in try await self.submit(request, context) }
    v1.get("jobs") { request, _ in try await self.list(request) }
    v1.get("jobs/:id") { _, context in try await self.show(context.parameters.require("id")) }
    v1.delete("jobs/:id") { _, context in try await self.cancel(context.parameters.require("id")) }
    v1.post("jobs/:id/retry") { _, context in try await self.retry(context.parameters.require("id")) }
    v1.post("jobs/:id/reprint") { request, context in
      try await self.reprint(context.parameters.require("id"), request)
    }
    v1.get("jobs/:id/document.pdf") { _, context in try await self.document(context.parameters.require("id")) }
    v1.post("orders") { request, context in try await self.submitOrder(request, context) }
    v1.get("orders/:id") { _, context in try await self.showOrder(context.parameters.require("id")) }
    v1.post("render") { request, context in try await self.render(request, context) }
    v1.get("printers") { _, _ in try await self.printers() }
    v1.get("templates") { _, _ in try self.templateList() }
    v1.get("templates/:name") { _, context in try self.templateSource(context.parameters.require("name")) }
    v1.put("templates/:name") { request, context in
      try await self.saveTemplate(context.parameters.require("name"), request)
    }
    v1.get("models") { _, _ in try self.modelList() }
    v1.get("examples") { _, _ in try self.exampleList() }
    v1.get("examples/:name") { _, context in try self.example(context.parameters.require("name")) }
    v1.get("events") { request, _ in self.events(request) }
    WebApp.add(to: router)
    polling?.add(to: router)
    webhooks?.add(to: router)
    router.get("healthz") { _, _ in json(StatusResponse(status: "ok")) }
    router.get("openapi.yaml") { _, _ in
      Response(
        status: .ok, headers: [.contentType: "application/yaml"],
        body: .init(byteBuffer: ByteBuffer(bytes: ReceiptServer.openAPIDocument)))
    }
    router.get("readyz") { _, _ in try await self.ready() }
    router.get("metrics") { _, _ in
      let counts = try await self.store.counts()
      return Response(
        status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
        body: .init(
          byteBuffer: ByteBuffer(
            string: self.metrics.exposition(counts: counts, eventListeners: self.hub.subscriberCount))))
    }
  }

  /// POST /v1/jobs: stored durably before 202; the same Idempotency-Key with the same request
  /// returns the same job (200), with a different request 409.
  private func submit(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
    let raw = try await RequestBody.json(request, limit: configuration.maxBodyBytes)
    let job = try JobRequest(body: raw, configuration: configuration)
    let key = try idempotencyKey(request)
    let (stored, created) = try await store.accept(job, idempotencyKey: key)
    if !created {
      try Self.checkSameRequest(key, kind: "job", id: stored.id, differences: job.differences(from: stored))
    }
    return json(JobResponse(stored), status: created ? .accepted : .ok, headers: [.location: "/v1/jobs/\(stored.id)"])
  }

  /// A repeated Idempotency-Key must come with the same request: 409 naming what differs.
  private static func checkSameRequest(_ key: String?, kind: String, id: String, differences: [String]) throws {
    guard differences.isEmpty else {
      throw Problem.conflict(
        "Idempotency-Key \(key ?? "") was used for \(kind) \(id) with a different "
          + "\(differences.joined(separator: ", ")); send the same request, or use a new key for a new \(kind)")
    }
  }

  /// The request's Idempotency-Key, checked.
  private func idempotencyKey(_ request: Request) throws -> String? {
    let key = request.headers[.idempotencyKey]
    if let key, key.isEmpty || key.count > 200 {
      throw Problem.badRequest("Idempotency-Key must be 1 to 200 characters", field: "Idempotency-Key")
    }
    return key
  }

  /// POST /v1/orders: every ticket the routes make of the order, stored in one transaction
  /// before 202; the same Idempotency-Key returns the same order (200), with a different
  /// request 409.
  private func submitOrder(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
    let raw = try await RequestBody.json(request, limit: configuration.maxBodyBytes)
    let order = try OrderRequest(body: raw, configuration: configuration)
    let key = try idempotencyKey(request)
    let (stored, jobs, created) = try await store.acceptOrder(order, idempotencyKey: key)
    if !created {
      try Self.checkSameRequest(key, kind: "order", id: stored.id, differences: order.differences(from: stored))
    } else {
      for job in jobs { metrics.countTicket(route: job.route ?? "") }
    }
    return json(
      OrderResponse(stored, jobs: jobs), status: created ? .accepted : .ok,
      headers: [.location: "/v1/orders/\(stored.id)"])
  }

  private func showOrder(_ id: String) async throws -> Response {
    guard let (order, jobs) = try await store.order(id) else { throw Problem.notFound("no order \(id)") }
    return json(OrderResponse(order, jobs: jobs))
  }

  /// POST /v1/jobs/{id}/reprint: a new job printing a completed job again, marked as a copy
  /// (`$reprint`); idempotent with its key.
  private func reprint(_ id: String, _ request: Request) async throws -> Response {
    guard let original = try await store.job(id) else { throw Problem.notFound("no job \(id)") }
    let key = try idempotencyKey(request)
    guard original.state == .completed else {
      throw Problem.conflict("job \(id) is \(original.state.rawValue); only printed (completed) jobs are reprinted")
    }
    var source = original
    if let first = original.reprintOf, let found = try await store.job(first) { source = found }
    guard !source.documentRemoved else {
      throw Problem.conflict(
        "job \(id) cannot be reprinted: its document was removed \(configuration.documentDays) days after it ended (documentDays)"
      )
    }
    let (job, created) = try await store.reprint(source, idempotencyKey: key)
    guard created || job.reprintOf == source.id else {
      throw Problem.conflict(
        "Idempotency-Key \(key ?? "") was used for job \(job.id), which is not a reprint of \(source.id); use a new key"
      )
    }
    return json(JobResponse(job), status: created ? .accepted : .ok, headers: [.location: "/v1/jobs/\(job.id)"])
  }

  /// GET /v1/jobs/{id}/document.pdf: the archived PDF of what was printed, checked against the
  /// SHA-256 recorded when it printed.
  private func document(_ id: String) async throws -> Response {
    guard let job = try await store.job(id) else { throw Problem.notFound("no job \(id)") }
    guard let hash = job.documentSHA256, let directory = configuration.archiveDirectory else {
      throw Problem.notFound("job \(id) has no archived document (it has not printed, or archiving is off)")
    }
    let url = directory.appendingPathComponent(ArchiveFile.name(job.id))
    guard let data = try? Data(contentsOf: url) else {
      throw Problem(
        status: .gone, title: "Gone",
        detail: "the document of job \(id) is no longer archived (archiveDays is \(configuration.archiveDays))")
    }
    guard ArchiveFile.sha256(data) == hash else {
      throw Problem(
        status: .internalServerError, title: "Archive damaged",
        detail: "the archived document of job \(id) does not match its SHA-256 \(hash); it was changed on disk")
    }
    return Response(
      status: .ok,
      headers: [.contentType: "application/pdf", .reprDigest: "sha-256=:\(ArchiveFile.base64(hex: hash)):"],
      body: .init(byteBuffer: ByteBuffer(bytes: data)))
  }

  private func list(_ request: Request) async throws -> Response {
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
    let jobs = try await store.jobs(state: state, printer: query.get("printer"), limit: limit, before: cursor)
    let next = jobs.count == limit ? jobs.last.map { String($0.sequence) } : nil
    return json(JobListResponse(jobs: jobs.map(JobResponse.init), next: next))
  }

  private func show(_ id: String) async throws -> Response {
    guard let job = try await store.job(id) else { throw Problem.notFound("no job \(id)") }
    return json(JobResponse(job))
  }

  private func cancel(_ id: String) async throws -> Response {
    guard let job = try await store.cancel(id) else { throw Problem.notFound("no job \(id)") }
    guard job.state == .canceled else {
      throw Problem.conflict("job \(id) is \(job.state.rawValue); only queued jobs can be canceled")
    }
    return json(JobResponse(job))
  }

  private func retry(_ id: String) async throws -> Response {
    guard let job = try await store.retry(id) else { throw Problem.notFound("no job \(id)") }
    guard job.state == .queued else {
      if job.documentRemoved {
        throw Problem.conflict(
          "job \(id) cannot be retried: its document was removed \(configuration.documentDays) days after it ended (documentDays)"
        )
      }
      throw Problem.conflict("job \(id) is \(job.state.rawValue); only failed or dead jobs are retried")
    }
    return json(JobResponse(job))
  }

  /// POST /v1/render?format=pdf|png|pwg: a synchronous preview, nothing queued. Rendering runs
  /// on the preview threads (429 when their queue is full), never on the request threads. The
  /// answer's headers give the cut length (`Receipt-Cut-Length`: points, also in mm and dots)
  /// and, with `bytes=escpos`, the size of the ESC/POS a printer of the chosen model would get.
  private func render(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
    let query = request.uri.queryParameters
    let format = OutputFormat(rawValue: query.get("format") ?? "pdf")
    guard let format, [.pdf, .png, .pwg].contains(format) else {
      throw Problem.badRequest("format must be pdf, png or pwg", field: "format")
    }
    let countESCPOS = query.get("bytes") == "escpos"
    guard query.get("bytes") == nil || countESCPOS else {
      throw Problem.badRequest("bytes may only be escpos", field: "bytes")
    }
    let raw = try await RequestBody.json(request, limit: configuration.maxBodyBytes)
    let preview = try RenderRequest(body: raw, configuration: configuration)
    let started = Date()
    do {
      let (engine, templates) = (self.engine, configuration.templates)
      let (rendered, escpos) = try await blocking.run {
        let bound =
          if let source = preview.source {
            try engine.templateDocument(
              source: source, named: preview.template, data: preview.data, templates: templates,
              options: preview.options)
          } else {
            try engine.templateDocument(
              template: preview.template, data: preview.data, templates: templates, options: preview.options)
          }
        let results = try engine.render(
          bound.document, formats: countESCPOS ? [format, .escpos] : [format],
          options: RenderOptions(model: preview.model, pageLimit: 1))
        return (results[0], results.dropFirst().first?.parts[0].count)
      }
      metrics.observeRender(seconds: Date().timeIntervalSince(started))
      let types: [OutputFormat: String] = [.pdf: "application/pdf", .png: "image/png", .pwg: "image/pwg-raster"]
      var headers: HTTPFields = [.contentType: types[format]!]
      if let page = rendered.pages.first {
        headers[.receiptCutLength] = String(format: "%.2f", page.cutLength)
        headers[.receiptCutLengthMillimetres] = String(format: "%.1f", page.cutLengthMillimetres)
        headers[.receiptCutLengthDots] = String(page.cutLengthDots)
      }
      headers[.receiptPages] = String(rendered.pages.count)
      if let escpos { headers[.receiptESCPOSBytes] = String(escpos) }
      return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: rendered.parts[0])))
    } catch let error as ReceiptError {
      throw error.problem(source: preview.source != nil)
    }
  }

  private func printers() async throws -> Response {
    json(PrinterListResponse(printers: try await probe.responses()))
  }

  private func templateList() throws -> Response {
    json(TemplateListResponse(templates: try TemplateLibrary(directory: configuration.templates).templateNames()))
  }

  /// Ready when the store can write (after a failed write, a probe write decides).
  private func ready() async throws -> Response {
    if let problem = await store.writeProblem() {
      throw Problem.unavailable("the job queue cannot be written: \(problem)")
    }
    return json(StatusResponse(status: "ready"))
  }
}
