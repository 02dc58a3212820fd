package import Foundation
import ReceiptKit

/// A print job as the queue keeps it.
struct Job: Codable, Sendable, Equatable {
  /// Where a job is in its life.
  enum State: String, Codable, Sendable, CaseIterable {
    /// Created without its document yet (IPP Create-Job): not in its printer's queue until the
    /// document arrives (Send-Document), canceled when it does not in time.
    case held
    /// Accepted, waiting for its printer (or for a retry).
    case queued
    /// Being rendered and sent.
    case printing
    /// The printer reported it printed.
    case completed
    /// A permanent error (template, data): not retried.
    case failed
    /// Canceled before it printed.
    case canceled
    /// Too many transient failures; kept for inspection, retry by hand.
    case dead
  }

  var id: String
  /// FIFO position (per printer, ascending).
  var sequence: Int64
  var idempotencyKey: String?
  var printer: String
  var template: String
  /// The order JSON as received.
  var data: Data
  var locale: String?
  var copies: Int
  var state: State
  var attempts: Int
  /// Times the daemon stopped without a clean shutdown while it was rendering this job (its own
  /// work: binding, layout, drawing, encoding). After the configured number of them
  /// (`maxCrashes`) the job is dead, so one job that crashes the renderer cannot stop its
  /// printer's queue for ever. A stop while the job was with its printer (being sent, followed
  /// at CUPS, waiting for a raw printer's confirmation) is not the job's doing and not counted.
  var crashes: Int
  var error: String?
  /// The CUPS job id once sent to CUPS.
  var cupsJobID: Int?
  /// While a sent job waits: the CUPS job state and the printer's reasons (`held`,
  /// `printer-stopped`, `media-empty` …).
  var printerState: String?
  var createdAt: Date
  var updatedAt: Date
  /// Not claimed before this time (retry backoff).
  var notBefore: Date
  /// The order this job is a ticket of (`POST /v1/orders`).
  var orderID: String?
  /// The route that made this ticket.
  var route: String?
  /// The ticket's label on paper (`KITCHEN`).
  var label: String?
  /// Where the ticket goes while its printer cannot print.
  var fallback: String?
  /// The printer the job was meant for when it was moved to its fallback (`printer` is where it
  /// printed), and why it was moved.
  var fallbackFor: String?
  var failoverReason: String?
  /// The job this one reprints, and which reprint of it this is (1, 2 …; 0: an original).
  var reprintOf: String?
  var reprint: Int
  /// SHA-256 (hex) of the archived PDF of what was printed.
  var documentSHA256: String?
  /// When the job was last handed to a raw printer (socket, USB, serial), and the process ID the
  /// printer was asked to confirm it with (models that confirm prints): set before the bytes go
  /// out, so a restart knows the job may have printed.
  var sentAt: Date?
  var processID: String?
  /// Earlier prints of this job that were interrupted (the printer stopped mid-receipt) or never
  /// confirmed (a crash or a lost connection after sending): it prints again marked "REPRINT".
  var interruptions: Int
  /// While `printing`: whether the daemon is doing the job's own work or waiting on its printer
  /// (recorded durably before the first byte goes out), which decides whether a crash counts.
  var stage: Stage? = nil
  /// A document job's format (what an IPP client sent: PDF, PWG or Apple raster, JPEG, PNG),
  /// its bytes in `data`; nil for an order bound into `template`.
  var documentFormat: DocumentFormat? = nil
  /// The job's name and the user who sent it, as an IPP client gave them (`job-name`,
  /// `requesting-user-name`).
  var jobName: String? = nil
  var user: String? = nil
  /// How a document job prints: scaling, content, pages (stored as JSON text).
  var printOptions: DocumentJobOptions? = nil
  /// An e-receipt's address (a job of a `mail:` destination that names no fixed one).
  var recipient: String? = nil

  /// The part of printing a `printing` job is in.
  enum Stage: String, Codable, Sendable {
    /// Claimed and being bound, laid out, drawn and encoded: the job's own work.
    case rendering
    /// Handed to its printer: being sent, followed at CUPS, or waiting for a confirmation.
    case printer
  }
}

/// What a client submits.
package struct JobRequest: Sendable, Equatable {
  var printer: String
  var template: String
  package var data: Data
  var locale: String?
  var copies: Int
  /// Set for a ticket of an order: its route, label and fallback printer.
  var route: String?
  var label: String?
  var fallback: String?
  /// Set for a reprint: the original job and the reprint's number.
  var reprintOf: String?
  var reprint: Int = 0
  /// Set for a document job (IPP): its format, name, user and print options (see ``Job``).
  var documentFormat: DocumentFormat?
  var jobName: String?
  var user: String?
  var printOptions: DocumentJobOptions?
  /// Set for an e-receipt: its address.
  var recipient: String?
  /// Created without its document (IPP Create-Job): `held` until ``Job/release(data:documentFormat:now:)``.
  var held = false

  /// Creates a request.
  init(printer: String, template: String, data: Data, locale: String? = nil, copies: Int = 1) {
    self.printer = printer
    self.template = template
    self.data = data
    self.locale = locale
    self.copies = copies
  }
}
