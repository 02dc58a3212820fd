import Foundation
import ReceiptKit

/// One attempt at a job for a printer that polls the daemon (Star CloudPRNT): the job is drawn
/// on the printer's thread as for a raw printer, offered to the device with a token of this
/// attempt, and printed once the device confirms it. The device's fetch is recorded as the
/// receipt sent by the route that serves it — the job as drawn here, with
/// ``Job/markSent(processID:now:)`` applied (``JobStore/recordSent(_:now:)``) — so an attempt
/// that was fetched and not confirmed prints again marked as a reprint.
extension PrintWorker {
  func printPolled(_ job: Job) async throws -> Int? {
    guard let polled else {
      throw ReceiptError(.printer, "printer \(printer.name) polls, but the daemon serves no polls")
    }
    var sent = job
    sent.markSent(processID: nil, now: Date())
    let request = PrintRequest(
      printer: printer.target.address, copies: job.copies, jobName: Self.fileName(job), archive: archiver(job),
      model: printer.model)
    let prepared = try await prepare(sent, request)
    await handedOver(job)
    // A token of this attempt, at most 30 characters of letters, digits and `.` (what both
    // protocols carry: Epson's printjobid is the narrower).
    let token = String(job.id.filter { $0 != "-" }.prefix(24)) + ".\(job.attempts)"
    var documents = [(type: String, data: Data)]()
    if printer.target.kind is CloudPRNTPrinter.Address {
      // Star raster in both of its media types; a PNG too when the receipt is one page.
      documents = CloudPRNTPrinter.mediaTypes.map { ($0, prepared.encoded) }
      if let png = try? await pool.run({ try prepared.encoded(as: .png) }) { documents.append(("image/png", png)) }
    } else {
      documents = [(PrintPath.eposPrint.mimeType, prepared.encoded)]
    }
    polled.offer(printer.name, drawn: sent, token: token, documents: documents)
    defer { polled.withdraw(printer.name, token: token) }
    while true {
      let now = Date()
      switch polled.stage(printer.name, token: token) {
      case .ended(.printed)?:
        return nil
      case .ended(.refused(let why))?:
        throw ReceiptError(
          .printer, "printer \(printer.name) cannot print the job as it was offered: \(why)", permanent: true)
      case .ended(.failed(let why))?:
        throw ReceiptError(
          .printer, "printer \(printer.name) did not print the job: \(why); it is offered again, marked as a reprint")
      case .offered(let since)?:
        if now.timeIntervalSince(since) > polled.pollTimeout {
          throw ReceiptError(
            .printer,
            "printer \(printer.name) did not fetch the job within \(String(format: "%.0f", polled.pollTimeout)) s")
        }
      case .fetched(let since)?:
        if now.timeIntervalSince(since) > polled.confirmTimeout {
          throw ReceiptError(
            .printer,
            "printer \(printer.name) fetched the job and did not confirm it within \(String(format: "%.0f", polled.confirmTimeout)) s; it is offered again, marked as a reprint"
          )
        }
      case nil:
        throw ReceiptError(.printer, "the offer of job \(job.id) to printer \(printer.name) was withdrawn")
      }
      if mustLeave { throw Interrupted() }
      await pause(1)
    }
  }
}
