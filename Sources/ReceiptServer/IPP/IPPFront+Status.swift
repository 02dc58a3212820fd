import Foundation
import Hummingbird
import ReceiptKit
import ReceiptModel

/// The IPP operations that read: the printer's attributes and state, jobs and their attributes,
/// and the printer's web page (its `printer-more-info`).
extension IPPFront {
  /// Seconds the IPP front has been up (IPP times count from it; always above 0).
  var upTime: Int32 {
    Int32(clamping: Date().timeIntervalSince(startedAt).clampedInt(.down, in: 0...Int(Int32.max) - 1) + 1)
  }

  /// The printer's state as IPP gives it, from its worker: stopped with the printer's reasons
  /// while it holds its queue (paper out, cover open), processing while a job prints.
  func ippState(_ printer: IPPPrinter) async throws -> (
    state: Int32, reasons: [PrinterStateReason], message: String, jobs: Int
  ) {
    let counts = try await store.counts()
    let jobs = counts.count(printer.name, in: [.queued, .printing, .held])
    if let hold = hold(printer.name) {
      var reasons = (hold.reasons.isEmpty ? [.other] : hold.reasons).map(\.withSeverity)
      // RFC 8011 5.4.12: out of paper is also `media-needed` (what clients and PWG's
      // self-certification look for), beside PWG 5100.9's `media-empty`.
      if reasons.contains(where: \.isOutOfPaper), !reasons.contains(where: { $0.keyword == "media-needed" }) {
        reasons.append(PrinterStateReason.mediaNeeded.withSeverity)
      }
      return (5, reasons, hold.message, jobs)
    }
    return (counts.count(printer.name, .printing) > 0 ? 4 : 3, ["none"], "", jobs)
  }

  /// The largest document the listener takes, in kilobytes (`ippMaxDocumentBytes`).
  var documentKilobytes: Int32 {
    Int32(clamping: (configuration.ipp?.maxDocumentBytes ?? 32 << 20) / 1024)
  }

  func printerAttributes(_ context: IPPContext) async throws -> IPPMessage {
    let printer = context.printer
    let (state, reasons, message, jobs) = try await ippState(printer)
    let empty = reasons.contains(where: \.isOutOfPaper)
    let alerts = IPPPrinterAlert.alerts(reasons: reasons)
    // Both schemes on the one port (RFC 8011 5.4.1: in a printer's order of preference).
    let uris = security.schemes.map { "\($0)://\(context.via.host)/ipp/print/\(printer.name)" }
    var attributes = printer.fixedAttributes(
      uris: uris, moreInfo: context.pageURI, started: startedAt)
    let templates = (try? TemplateLibrary(directory: configuration.templates).templateNames()) ?? []
    attributes += [
      IPPAttribute("printer-state", .enumeration(state)),
      IPPAttribute("printer-state-reasons", reasons.map { .keyword($0.rawValue) }),
      IPPAttribute("printer-state-message", .text(message)),
      IPPAttribute("printer-alert", IPPPrinterAlert.values(alerts).map { .octetString(Array($0.utf8)) }),
      IPPAttribute(
        "printer-alert-description",
        alerts.isEmpty ? [.text("")] : alerts.map { _ in .text(message.isEmpty ? "stopped" : message) }),
      IPPAttribute("printer-is-accepting-jobs", .boolean(true)),
      IPPAttribute("queued-job-count", .integer(Int32(clamping: jobs))),
      IPPAttribute("printer-up-time", .integer(upTime)),
      IPPAttribute("printer-current-time", .dateTime(Date())),
      IPPAttribute("printer-state-change-time", .integer(1)),
      IPPAttribute("printer-state-change-date-time", .dateTime(startedAt)),
      IPPAttribute(
        "printer-supply",
        .octetString(
          Array(
            "index=1;class=supplyThatIsConsumed;type=other;unit=percent;maxcapacity=100;level=\(empty ? 0 : -3);colorantname=unknown;"
              .utf8))),
      IPPAttribute("printer-supply-description", .text("Receipt paper (\(printer.widthName) mm roll)")),
      // PWG 5100.13: what the documents may be — PDF of any version poppler reads, as large as
      // the listener takes (kilobytes) — and the format that prints best (PDF, drawn at the
      // head's own resolution).
      IPPAttribute("document-format-preferred", .mimeMediaType("application/pdf")),
      IPPAttribute(
        "pdf-versions-supported",
        ["adobe-1.3", "adobe-1.4", "adobe-1.5", "adobe-1.6", "adobe-1.7", "iso-32000-1_2008"].map(
          IPPValue.keyword)),
      IPPAttribute("pdf-k-octets-supported", .range(0, documentKilobytes)),
      IPPAttribute("jpeg-k-octets-supported", .range(0, documentKilobytes)),
      // PWG 5100.16: no JPEG feature beyond baseline is promised (the reader may take more; a
      // client that asks sends baseline JPEG, which every reader here is tested with).
      IPPAttribute("jpeg-features-supported", .keyword("none")),
      // PWG 5100.13's trays (the Printer MIB's input and output tables as key=value;): the roll
      // (continuous, as wide as the paper; capacity and level unknown) and the face-up exit.
      IPPAttribute(
        "printer-input-tray",
        .octetString(
          Array(
            "type=continuousRoll;mediafeed=0;mediaxfeed=\(printer.paperWidth);maxcapacity=-2;level=-2;status=0;name=main-roll;"
              .utf8))),
      IPPAttribute(
        "printer-output-tray",
        .octetString(
          Array(
            "type=unRemovableBin;maxcapacity=-2;remaining=-2;status=0;stackingorder=firstToLast;pagedelivery=faceUp;name=face-up;"
              .utf8))),
      // CUPS' marker attributes (what Home Assistant's pyipp reads): the paper, its level in
      // percent (-3: some left, not measured; 0: out), black on white.
      IPPAttribute("marker-names", .name("Receipt paper (\(printer.widthName) mm roll)")),
      IPPAttribute("marker-colors", .name("#000000")),
      IPPAttribute("marker-types", .keyword("other")),
      IPPAttribute("marker-levels", .integer(empty ? 0 : -3)),
      IPPAttribute("marker-low-levels", .integer(0)),
      IPPAttribute("marker-high-levels", .integer(100)),
    ]
    if !templates.isEmpty { attributes.append(IPPAttribute("template-supported", templates.map(IPPValue.name))) }
    let requested = context.request.requestedAttributes ?? ["all"]
    let everything =
      requested.contains("all") || requested.contains("printer-description")
      || requested.contains("job-template")
    if requested.contains("media-col-database") { attributes.append(printer.mediaColDatabase) }
    let chosen = everything ? attributes : attributes.filter { requested.contains($0.name) }
    var answer = Self.ippAnswer(.ok, requestID: 0)
    answer.groups.append(IPPAttributeGroup(.printer, chosen))
    return answer
  }

  /// A job's attributes for the client of `context` (its printer's URI as the client reaches
  /// it; the name and user only for the job's sender).
  func jobGroup(
    _ job: Job, _ context: IPPContext, intervening: Int? = nil, stopped: Bool, requested: Set<String>?
  ) -> [IPPAttribute] {
    IPPJobAttributes.attributes(
      job, printer: context.printer, printerURI: context.printerURI, upTime: upTime, started: startedAt,
      intervening: intervening, printerStopped: stopped, requested: requested,
      private: !IPPJobAttributes.owns(context.request.user, job))
  }

  func jobAttributes(_ context: IPPContext) async throws -> IPPMessage {
    let sequence = try context.request.jobID()
    guard let job = try await ippJob(sequence), job.printer == context.printer.name else {
      throw IPPFailure(.notFound, "no job \(sequence) on printer \(context.printer.name)")
    }
    let stopped = hold(context.printer.name) != nil
    var intervening: Int?
    if job.state == .queued {
      intervening = try await store.jobs(state: .queued, printer: job.printer, limit: 500, before: job.sequence).count
    }
    var answer = Self.ippAnswer(.ok, requestID: 0)
    answer.groups.append(
      IPPAttributeGroup(
        .job,
        jobGroup(
          job, context, intervening: intervening, stopped: stopped, requested: context.request.requestedAttributes)))
    return answer
  }

  /// Get-Jobs: `which-jobs` (not-completed by default), `my-jobs`, `job-ids`, `limit`, newest
  /// first; each job described by `requested-attributes` (job-id and job-uri by default).
  func jobs(_ context: IPPContext) async throws -> IPPMessage {
    let request = context.request
    let which = request.operationAttribute("which-jobs")?.string ?? "not-completed"
    let states: [Job.State]
    switch which {
    case "not-completed": states = [.held, .queued, .printing]
    case "completed": states = [.completed, .canceled, .failed, .dead]
    case "all": states = Job.State.allCases
    default:
      throw IPPFailure(
        .attributesOrValuesNotSupported, "which-jobs \(which) is not supported",
        unsupported: [IPPAttribute("which-jobs", .keyword(which))])
    }
    let limit = min(500, max(1, request.operationAttribute("limit")?.integer ?? 500))
    let mine = request.operationAttribute("my-jobs")?.boolean ?? false
    let ids = request.operationAttribute("job-ids")?.values.compactMap(\.integer).map(Int64.init)
    var found: [Job] = []
    for state in states {
      found += try await store.jobs(state: state, printer: context.printer.name, limit: 500, before: nil)
    }
    let jobs = found.filter { job in
      (!mine || job.user == request.user) && (ids?.contains(job.sequence) ?? true)
    }.sorted { $0.sequence > $1.sequence }.prefix(limit)
    let requested = request.requestedAttributes ?? ["job-id", "job-uri"]
    let stopped = hold(context.printer.name) != nil
    var answer = Self.ippAnswer(.ok, requestID: 0)
    for job in jobs {
      answer.groups.append(
        IPPAttributeGroup(
          .job,
          jobGroup(job, context, stopped: stopped, requested: requested)))
    }
    return answer
  }

  /// The printer's web page (`printer-more-info`, `printer-supply-info-uri`): its state and queue.
  func ippStatusPage(_ name: String?, _ request: Request) async throws -> Response {
    let shown =
      name.map { name in self.printers[name].map { [$0] } ?? [] } ?? self.printers.values.sorted { $0.name < $1.name }
    guard !shown.isEmpty else { throw HTTPError(.notFound) }
    var rows = ""
    for printer in shown {
      let (state, reasons, message, jobs) = try await ippState(printer)
      let word = state == 5 ? "stopped" : state == 4 ? "printing" : "idle"
      rows +=
        "<tr><td>\(html(printer.name))</td><td>\(html(printer.makeAndModel))</td><td>\(printer.widthName) mm</td>"
        + "<td>\(word)\(message.isEmpty ? "" : ": " + html(message)) (\(html(reasons.map(\.rawValue).joined(separator: ", "))))</td>"
        + "<td>\(jobs)</td></tr>"
    }
    let page = """
      <!doctype html><html lang="en"><head><meta charset="utf-8"><title>receipt printers</title></head>
      <body><h1>receipt printers</h1><table><tr><th>printer</th><th>model</th><th>roll</th><th>state</th>
      <th>jobs waiting</th></tr>\(rows)</table></body></html>
      """
    return Response(
      status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
      body: .init(byteBuffer: ByteBuffer(string: page)))
  }

  private func html(_ text: String) -> String {
    text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
      .replacingOccurrences(of: ">", with: "&gt;")
  }
}
