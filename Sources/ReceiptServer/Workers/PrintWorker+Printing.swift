import Foundation
import Logging
import ReceiptKit

/// One attempt at a job, per kind of printer: the job's own work (binding, layout, drawing,
/// encoding) on the printer's thread, the store told durably that it is done, then the receipt
/// sent — so a crash is counted against a job only while its own work was in progress.
extension PrintWorker {
  /// Sends a job; returns the CUPS job id for CUPS printers. A directory printer writes the
  /// job's file unless it is there (printed before a crash); a raw printer gets the bytes (at
  /// least once after a crash: it cannot be asked).
  func print(_ job: Job) async throws -> Int? {
    // Fencing: a daemon that lost the printer (its database session) sends nothing more.
    guard await store.owns(printer: printer.name) else { throw OwnershipLost(job: job.id) }
    switch printer.target.delivery {
    case .spooler(let queue, let server):
      return try await printCUPS(job, queue: queue, server: server)
    case .files(let url):
      // Printed before a crash: nothing to lay out again.
      let name = Self.fileName(job)
      if try await pool.run({ DirectoryPrinter(directory: url).hasPrinted(PrintJob(name: name)) }) { return nil }
      let request = PrintRequest(
        printer: printer.target.address, copies: job.copies, jobName: name, archive: archiver(job),
        model: printer.model)
      let prepared = try await prepare(job, request)
      await handedOver(job)
      return try await send(prepared)
    case .polled:
      return try await printPolled(job)
    case .mail(let fixed):
      return try await printMail(job, fixed: fixed)
    case .raw:
      // Recorded once the receipt is drawn, before the first byte goes out: a job found sent and
      // not completed (a crash, a lost connection, paper out mid-receipt) may have printed, so it
      // prints again marked "REPRINT". The receipt is drawn from the job as the rule records it,
      // and the store keeps exactly that or nothing is sent (`recordSent`). Models that confirm
      // prints are asked to, with an ID of this attempt.
      let processID = printer.model?.confirmsPrints == true ? ReceiptEngine.processID() : nil
      var sent = job
      sent.markSent(processID: processID, now: Date())
      let request = PrintRequest(
        printer: printer.target.address, copies: job.copies, jobName: Self.fileName(job), archive: archiver(job),
        model: printer.model, processID: processID, shouldStop: shouldStop)
      let prepared = try await prepare(sent, request)
      try await store.recordSent(sent)
      return try await send(prepared)
    }
  }

  /// The job's own work on the printer's thread: bound (or, for a document, read), laid out,
  /// archived, drawn and encoded. A document is read in a process of its own, given up when the
  /// stop's grace is over (the job is then ``Interrupted``, as a stop — never a crash).
  func prepare(_ job: Job, _ request: PrintRequest) async throws -> PreparedPrint {
    if let format = job.documentFormat {
      guard !job.documentRemoved else {
        throw ReceiptError(.data, "job \(job.id)'s document was removed after the retention (documentDays)")
      }
      // An interrupted print (or a reprint) is marked as one, as templates mark receipts.
      let mark = job.interruptions > 0 || job.reprint > 0 ? "*** REPRINT ***" : nil
      let options = (job.printOptions ?? DocumentJobOptions()).printOptions(paper: printer.roll, mark: mark)
      var request = request
      request.shouldStop = request.shouldStop ?? shouldStop
      do {
        return try await pool.run { [request] in
          try self.engine.prepareDocument(job.data, format: format, options: options, request: request)
        }
      } catch let error as ReceiptError {
        if case .abandoned = error.underlying as? PrintError { throw Interrupted() }
        throw error
      }
    }
    return try await pool.run { try self.engine.prepare(try self.document(job), request: request) }
  }

  /// Sends a prepared receipt on the printer's thread; a print given up for the stop is
  /// ``Interrupted``.
  func send(_ prepared: PreparedPrint) async throws -> Int? {
    let engine = self.engine
    do {
      return try await pool.run { try engine.send(prepared).jobID }
    } catch let error as ReceiptError {
      if case .abandoned = error.underlying as? PrintError { throw Interrupted() }
      throw error
    }
  }

  /// Records that the job's own work is done and it goes to its printer (so a crash from now on
  /// is not counted against it). Only crash accounting depends on it, so a store that cannot
  /// write (a full disk) does not stop the print: a crash would then count, as before stages.
  func handedOver(_ job: Job) async {
    do { try await store.markHandedOver(job.id) } catch {
      logger.warning("job \(job.id): cannot record that it went to its printer (\(error)); printing it anyway")
    }
  }

  /// Writes the job's document to the archive before it is sent (nil: no archive). A
  /// directory printer's job that printed before a crash keeps the document it had.
  func archiver(_ job: Job) -> (@Sendable (Data) throws -> Void)? {
    guard let archive else { return nil }
    let id = job.id
    return { pdf in try ArchiveFile.write(pdf, job: id, in: archive) }
  }

  /// The job's document, with the template's title and metadata (the archive and the PDF keep
  /// them, as `/v1/render` does; the CUPS job is found by its job name, ``cupsJobName(_:)``). The
  /// template sees `$reprint` (a reprint's number) and `$ticket` (`route`, `label`, and
  /// `fallbackFor`: the label of the printer it was meant for when it prints on a fallback).
  func document(_ job: Job) throws -> ReceiptDocument {
    var options = TemplateOptions(locale: job.locale, printHead: printer.model?.printHead)
    options.modelName = printer.model?.name
    options.variables = TemplateOptions.ticketVariables(
      route: job.route, label: job.label, fallbackFor: job.fallbackFor.map { job.label ?? $0.uppercased() },
      reprint: job.reprint, interrupted: job.interruptions)
    return try engine.templateDocument(
      template: job.template, data: job.data, templates: templates, options: options
    ).document
  }

  /// The CUPS job name of a daemon job: unique, so the job can be found again.
  static func cupsJobName(_ job: Job) -> String { "receipt-job-\(job.id)" }

  /// A directory printer's file for a job: its sequence keeps the files in print order.
  static func fileName(_ job: Job) -> String { String(format: "%08lld-%@.pdf", job.sequence, job.id) }
}
