import Foundation
import ReceiptKit
import ReceiptModel

/// A queue job as IPP describes it (RFC 8011 5.3): its state is the queue's, so a job an IPP
/// client sent reads `completed` only once its printer printed it (a raw printer that confirms
/// prints has said so), `pending` while the printer is out of paper, and so on.
enum IPPJobAttributes {
  /// What only a job's sender is told of it.
  static let privateAttributes: Set<String> = ["job-name", "job-originating-user-name"]

  /// Whether `user` (an IPP request's `requesting-user-name`) sent `job`: jobs of the REST API
  /// (no user) are nobody's over IPP.
  static func owns(_ user: String, _ job: Job) -> Bool { job.user == user }

  /// IPP `job-state` and `job-state-reasons` of a queue state.
  static func state(_ job: Job, printerStopped: Bool) -> (state: Int32, reasons: [String]) {
    switch job.state {
    case .held: return (4, ["job-incoming"])
    case .queued:
      return (3, printerStopped ? ["printer-stopped"] : job.attempts > 0 ? ["job-queued"] : ["none"])
    case .printing: return (5, printerStopped ? ["job-printing", "printer-stopped"] : ["job-printing"])
    case .completed: return (9, ["job-completed-successfully"])
    case .canceled: return (7, ["job-canceled-by-user"])
    case .failed:
      return (8, job.documentFormat != nil ? ["aborted-by-system", "document-format-error"] : ["aborted-by-system"])
    case .dead: return (8, ["aborted-by-system"])
    }
  }

  /// Every attribute of a job; `requested` narrows them (nil: the Get-Job-Attributes default, all).
  /// The job's name and its user are its sender's: `private` (another user asks) leaves them
  /// out, as CUPS' default `JobPrivateValues` does.
  static func attributes(
    _ job: Job, printer: IPPPrinter, printerURI: String, upTime: Int32, started: Date, intervening: Int?,
    printerStopped: Bool, requested: Set<String>?, private: Bool = false
  ) -> [IPPAttribute] {
    let (state, reasons) = state(job, printerStopped: printerStopped)
    func seconds(_ date: Date?) -> IPPValue {
      guard let date else { return .outOfBand(.noValue) }
      return .integer(Int32(clamping: date.timeIntervalSince(started).clampedInt(in: 0...Int(Int32.max) - 1) + 1))
    }
    func date(_ date: Date?) -> IPPValue { date.map(IPPValue.dateTime) ?? .outOfBand(.noValue) }
    let finished = [.completed, .canceled, .failed, .dead].contains(job.state) ? job.updatedAt : nil
    let processing = job.state == .printing || finished != nil ? job.sentAt ?? job.updatedAt : nil
    var message = job.error ?? ""
    if message.isEmpty { message = job.printerState ?? "" }
    var all: [IPPAttribute] = [
      IPPAttribute("job-id", .integer(Int32(clamping: job.sequence))),
      IPPAttribute("job-uri", .uri("\(printerURI)/\(job.sequence)")),
      IPPAttribute("job-printer-uri", .uri(printerURI)),
      IPPAttribute("job-uuid", .uri("urn:uuid:\(job.id)")),
      IPPAttribute("job-state", .enumeration(state)),
      IPPAttribute("job-state-reasons", reasons.map(IPPValue.keyword)),
      IPPAttribute("job-state-message", .text(String(message.prefix(1023)))),
      IPPAttribute("job-name", .name(job.jobName ?? "\(job.template) \(job.id.prefix(8))")),
      IPPAttribute("job-originating-user-name", .name(job.user ?? "receipt")),
      IPPAttribute("job-printer-up-time", .integer(upTime)),
      IPPAttribute("time-at-creation", seconds(job.createdAt)),
      IPPAttribute("time-at-processing", seconds(processing)),
      IPPAttribute("time-at-completed", seconds(finished)),
      IPPAttribute("date-time-at-creation", date(job.createdAt)),
      IPPAttribute("date-time-at-processing", date(processing)),
      IPPAttribute("date-time-at-completed", date(finished)),
      IPPAttribute("copies", .integer(Int32(job.copies))),
      // The job template as the job prints (RFC 8011 5.2; PWG 5100.14 asks them back): its media
      // (the roll at the length the client chose, else the default size), and the one way this
      // printer prints — monochrome, at its head's resolution, one side, normal quality.
      IPPAttribute("media", .keyword(job.printOptions?.media ?? printer.defaultMedia)),
      IPPAttribute("print-color-mode", .keyword("monochrome")),
      IPPAttribute("print-quality", .enumeration(4)),
      IPPAttribute("printer-resolution", .resolution(x: Int32(printer.dpi), y: Int32(printer.dpi), perInch: true)),
      IPPAttribute("sides", .keyword("one-sided")),
      IPPAttribute("document-format", .mimeMediaType((job.documentFormat ?? .order).rawValue)),
      // An order prints one page a copy; a document's pages are known once it is read.
      IPPAttribute(
        "job-impressions", job.documentFormat == nil ? .integer(Int32(job.copies)) : .outOfBand(.noValue)),
      IPPAttribute("job-impressions-completed", .integer(job.state == .completed ? Int32(job.copies) : 0)),
    ]
    if let intervening {
      all.append(IPPAttribute("number-of-intervening-jobs", .integer(Int32(clamping: intervening))))
    }
    if `private` { all.removeAll { Self.privateAttributes.contains($0.name) } }
    guard var requested, !requested.contains("all"), !requested.contains("job-description") else { return all }
    if requested.contains("job-template") {
      requested.formUnion(["copies", "media", "print-color-mode", "print-quality", "printer-resolution", "sides"])
    }
    return all.filter { requested.contains($0.name) }
  }
}
