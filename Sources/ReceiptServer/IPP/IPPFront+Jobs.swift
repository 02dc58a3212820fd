import Foundation
import Logging
import ReceiptKit

/// The IPP job operations: every job goes into the durable queue before its answer (like a `202`
/// of the REST API), as the same kind of job, so the queue's rules apply unchanged.
extension IPPFront {
  func perform(_ operation: IPPOperation, _ context: IPPContext) async throws -> IPPMessage {
    switch operation {
    case .getPrinterAttributes: return try await printerAttributes(context)
    case .identifyPrinter:
      logger.info("printer \(context.printer.name): identify (asked by \(context.request.user) over IPP)")
      return Self.ippAnswer(.ok, requestID: 0)
    case .validateJob:
      let ticket = try ticket(context)
      _ = try documentFormat(ticket, document: nil)
      return ok(ticket)
    case .printJob: return try await printJob(context)
    case .createJob: return try await createJob(context)
    case .sendDocument: return try await sendDocument(context)
    case .closeJob: return try await closeJob(context)
    case .cancelJob: return try await cancelJob(context)
    case .cancelMyJobs: return try await cancelMyJobs(context)
    case .getJobAttributes: return try await jobAttributes(context)
    case .getJobs: return try await jobs(context)
    }
  }

  private func ticket(_ context: IPPContext) throws -> IPPJobTicket {
    let templates = (try? TemplateLibrary(directory: configuration.templates).templateNames()) ?? []
    return try IPPJobTicket(context.request, printer: context.printer, templates: templates)
  }

  /// The document's format: the one given (checked against the bytes when they say otherwise),
  /// or what the bytes are (`application/octet-stream`, or none given).
  private func documentFormat(_ ticket: IPPJobTicket, document: IPPDocument?) throws -> DocumentFormat? {
    let given = ticket.format.flatMap(DocumentFormat.init(rawValue:))
    guard let document else { return given }
    let sniffed = DocumentFormat.sniff(try document.prefix(4096))
    if let given {
      if let sniffed, sniffed != given {
        throw IPPFailure(.documentFormatError, "the document is \(sniffed.rawValue), not \(given.rawValue)")
      }
      return given
    }
    guard let sniffed else {
      throw IPPFailure(
        .documentFormatNotSupported,
        "the document is none of \(IPPPrinter.formats.dropFirst().joined(separator: ", ")); send one of them")
    }
    return sniffed
  }

  /// The queue request of a job with its document (nil: Create-Job, the document comes later).
  /// The document is read into memory here, to be stored: call it holding a permit of
  /// ``IPPDocument/storing``.
  private func jobRequest(_ context: IPPContext, _ ticket: IPPJobTicket, document: IPPDocument?) throws -> JobRequest {
    var request = JobRequest(printer: context.printer.name, template: "", data: Data(), copies: ticket.copies)
    request.jobName = ticket.jobName
    request.user = context.request.user
    var options = ticket.options
    // Roll trimming: a length the client did not choose (none, or the default roll size, as a
    // desktop's or phone's default job asks) keeps only the page's printed rows and margins.
    if ticket.length == nil || ticket.length == IPPPrinter.defaultLength {
      if context.printer.config.trimRoll { options.trim = true }
    } else if let length = ticket.length {
      options.media = context.printer.customMedia(length: length)
    }
    request.printOptions = options.stored
    request.locale = ticket.locale
    guard let document else {
      request.held = true
      request.documentFormat = ticket.format.flatMap(DocumentFormat.init(rawValue:))
      request.template = ticket.template ?? ""
      return request
    }
    guard !document.isEmpty else { throw IPPFailure(.badRequest, "the request has no document") }
    let format = try documentFormat(ticket, document: document)
    if format == .order {
      request.data = try checkOrder(document, ticket: ticket)
      request.template = ticket.template ?? ""
    } else {
      request.documentFormat = format
      request.data = try document.data()
    }
    return request
  }

  /// An order sent as a document: it needs its template, and is JSON within the API's bound.
  private func checkOrder(_ document: IPPDocument, ticket: IPPJobTicket) throws -> Data {
    guard ticket.template != nil else {
      throw IPPFailure(
        .badRequest, "an order (application/vnd.receipt+json) needs the job attribute template naming its template")
    }
    guard document.count <= configuration.maxBodyBytes else {
      throw IPPFailure(.requestEntityTooLarge, "the order is over \(configuration.maxBodyBytes) bytes")
    }
    let data = try document.data()
    do {
      _ = try JSONParser.parseObject(data, name: "order")
    } catch {
      throw IPPFailure(.documentFormatError, "the order is not a JSON object: \(error)")
    }
    return data
  }

  private func printJob(_ context: IPPContext) async throws -> IPPMessage {
    let ticket = try ticket(context)
    return try await IPPDocument.storing.withPermit {
      let request = try jobRequest(context, ticket, document: context.request.document)
      let (job, _) = try await store.accept(request, idempotencyKey: nil)
      return ok(ticket, job: job, context)
    }
  }

  /// Jobs a printer may have waiting for their document (Create-Job) at once: clients send the
  /// document right after, so more are a client that never does.
  static let ippMaxHeldJobs = 64

  private func createJob(_ context: IPPContext) async throws -> IPPMessage {
    let ticket = try ticket(context)
    let held = try await store.counts().count(context.printer.name, .held)
    guard held < Self.ippMaxHeldJobs else {
      throw IPPFailure(
        .busy,
        "printer \(context.printer.name) has \(held) jobs waiting for their documents; send those first or try again later"
      )
    }
    let (job, _) = try await store.accept(try jobRequest(context, ticket, document: nil), idempotencyKey: nil)
    return ok(ticket, job: job, context)
  }

  private func sendDocument(_ context: IPPContext) async throws -> IPPMessage {
    let job = try await ownJob(context)
    guard case .boolean(let last)? = context.request.operationAttribute("last-document")?.values.first else {
      throw IPPFailure(.badRequest, "Send-Document needs last-document (a boolean)")
    }
    guard job.state == .held else {
      throw IPPFailure(
        [.queued, .printing, .completed].contains(job.state) ? .multipleDocumentJobsNotSupported : .notPossible,
        "job \(job.sequence) is \(job.state.rawValue); it takes one document")
    }
    let document = context.request.document
    guard !document.isEmpty else {
      if last { _ = try await store.abandon(job.id, reason: "the job was closed without a document") }
      return Self.ippAnswer(.ok, requestID: 0)
    }
    var ticket = try ticket(context)
    ticket.format = ticket.format ?? job.documentFormat?.rawValue
    ticket.template = job.template.isEmpty ? nil : job.template
    let format = try documentFormat(ticket, document: document)
    return try await IPPDocument.storing.withPermit {
      let data = format == .order ? try checkOrder(document, ticket: ticket) : try document.data()
      guard
        let (released, _) = try await store.release(
          job.id, data: data, documentFormat: format == .order ? nil : format)
      else { throw IPPFailure(.notFound, "job \(job.sequence) is gone") }
      return ok(ticket, job: released, context)
    }
  }

  private func closeJob(_ context: IPPContext) async throws -> IPPMessage {
    let job = try await ownJob(context)
    if job.state == .held { _ = try await store.abandon(job.id, reason: "the job was closed without a document") }
    return Self.ippAnswer(.ok, requestID: 0)
  }

  private func cancelJob(_ context: IPPContext) async throws -> IPPMessage {
    let job = try await ownJob(context)
    guard job.state == .held || job.state == .queued else {
      throw IPPFailure(
        .notPossible,
        job.state == .printing ? "job \(job.sequence) is printing" : "job \(job.sequence) is \(job.state.rawValue)")
    }
    _ = try await store.cancel(job.id)
    return Self.ippAnswer(.ok, requestID: 0)
  }

  private func cancelMyJobs(_ context: IPPContext) async throws -> IPPMessage {
    let user = context.request.user
    let ids = context.request.operationAttribute("job-ids")?.values.compactMap(\.integer).map(Int64.init)
    for state in [Job.State.held, .queued] {
      for job in try await store.jobs(state: state, printer: context.printer.name, limit: 500, before: nil)
      where job.user == user && (ids?.contains(job.sequence) ?? true) {
        _ = try await store.cancel(job.id)
      }
    }
    return Self.ippAnswer(.ok, requestID: 0)
  }

  /// The job a job operation that changes it names, on the request's printer: only the user who
  /// sent it (`requesting-user-name`) may (``IPPJobAttributes/owns(_:_:)``).
  private func ownJob(_ context: IPPContext) async throws -> Job {
    let sequence = try context.request.jobID()
    guard let job = try await ippJob(sequence), job.printer == context.printer.name else {
      throw IPPFailure(.notFound, "no job \(sequence) on printer \(context.printer.name)")
    }
    guard IPPJobAttributes.owns(context.request.user, job) else {
      throw IPPFailure(
        .notAuthorized,
        "job \(sequence) belongs to \(job.user == nil ? "the REST API" : "another user"), not \(context.request.user)")
    }
    return job
  }

  /// The job with an IPP job-id (its queue sequence).
  func ippJob(_ sequence: Int64) async throws -> Job? {
    guard sequence > 0, sequence < Int64.max else { return nil }
    return try await store.jobs(state: nil, printer: nil, limit: 1, before: sequence + 1).first {
      $0.sequence == sequence
    }
  }

  /// Success, with the attributes the printer could not honour and the new job's description.
  private func ok(_ ticket: IPPJobTicket, job: Job? = nil, _ context: IPPContext? = nil) -> IPPMessage {
    var answer = Self.ippAnswer(ticket.unsupported.isEmpty ? .ok : .okIgnoredOrSubstituted, requestID: 0)
    if !ticket.unsupported.isEmpty { answer.groups.append(IPPAttributeGroup(.unsupported, ticket.unsupported)) }
    if let job, let context {
      let summary: Set<String> = ["job-id", "job-uri", "job-state", "job-state-reasons", "job-state-message"]
      answer.groups.append(
        IPPAttributeGroup(
          .job,
          jobGroup(job, context, stopped: false, requested: summary)))
    }
    return answer
  }
}
