/// Printing failures, each with what happened and what to do.
///
/// ``isPermanent`` says whether trying again can help.
public enum PrintError: Error, Equatable, CustomStringConvertible, Sendable {
  /// cupsd cannot be reached.
  case serverUnavailable(server: String, reason: String)
  /// No such queue.
  case unknownPrinter(String, known: [String])
  /// No printer given and no default set.
  case noDefaultPrinter
  /// The queue is stopped or rejects jobs.
  case printerNotReady(String, reason: String)
  /// cupsd refused the job or the document.
  case rejected(String)
  /// The printer's media does not fit the receipt (wrong roll width, too long).
  case mediaNotSupported(String, reason: String)
  /// The job ended without printing (stopped, canceled, aborted) or did not finish in time.
  case jobFailed(id: Int, state: String, reason: String)
  /// A raw socket printer failed.
  case socket(String)
  /// A print format could not be encoded (libcups refused a raster header).
  case encoding(String)
  /// Output could not be written (a file, a directory printer, a device).
  case output(String)
  /// A printer address receipt does not understand.
  case badAddress(String)
  /// A printer model that is unknown or whose file is not a valid model.
  case badModel(String)
  /// The printer stopped mid-receipt (paper out, cover open, an error) before confirming it:
  /// what had not printed was cleared; the receipt must print again once the printer is ready.
  case interrupted(String)
  /// The receipt was sent but the printer did not confirm it printed (no answer in time, or the
  /// connection was lost): whether it printed is unknown.
  case notConfirmed(String)
  /// A library printing needs is missing or cannot be loaded (libcups).
  case libraryMissing(String)
  /// The caller stopped the print (``PrintJob/shouldStop``) while it was being sent or its
  /// confirmation awaited: whether it printed is unknown.
  case abandoned(String)
  /// A document to print (PDF, raster, image) that cannot be read, or is over a bound.
  case document(String)
  /// A printer that fetches its jobs from the daemon (CloudPRNT, Server Direct Print) was sent one.
  case pollsTheDaemon(String)
  /// An e-mail destination (`mail:`) was sent a receipt outside the daemon.
  case mailThroughTheDaemon(String)

  public var description: String {
    switch self {
    case .serverUnavailable(let server, let reason):
      return "cannot reach the CUPS server at \(server): \(reason); is cupsd running (systemctl start cups)?"
    case .unknownPrinter(let name, let known):
      let list = known.isEmpty ? "no printers are set up (lpadmin)" : "printers: \(known.joined(separator: ", "))"
      return "no printer named '\(name)'; \(list)"
    case .noDefaultPrinter:
      return "no printer given and no default printer set; use --printer NAME or lpoptions -d NAME"
    case .printerNotReady(let name, let reason):
      return "printer '\(name)' is not ready: \(reason); check it and run cupsenable \(name)"
    case .rejected(let reason):
      return "CUPS rejected the job: \(reason)"
    case .mediaNotSupported(let name, let reason):
      return "printer '\(name)' cannot print this receipt: \(reason)"
    case .jobFailed(let id, let state, let reason):
      return "job \(id) \(state): \(reason)"
    case .socket(let message), .encoding(let message), .output(let message), .badModel(let message),
      .interrupted(let message), .notConfirmed(let message), .libraryMissing(let message), .abandoned(let message),
      .document(let message):
      return message
    case .badAddress(let address):
      let forms = PrinterAddress.syntax
      return
        "'\(address)' is not a printer address: write a CUPS queue name, \(forms.dropLast().joined(separator: ", ")) or \(forms.last ?? "")"
    case .mailThroughTheDaemon(let name):
      return
        "'\(name)' is an e-mail destination of the daemon's queue: add it to receipt serve (--printer NAME=\(name), with mailFrom) and submit jobs with their email there"
    case .pollsTheDaemon(let name):
      return
        "printer '\(name)' fetches its jobs from the daemon and cannot be sent one: add it to receipt serve (--printer NAME=\(name) with its model and printerCredentials) and submit the job there"
    }
  }
}

extension PrintError {
  /// Trying again cannot help: the printer does not exist, the address is wrong, the paper does
  /// not fit, or the encoder refuses the receipt. Unreachable or stopped printers, refused or
  /// failed jobs and write errors may pass.
  public var isPermanent: Bool {
    switch self {
    case .unknownPrinter, .noDefaultPrinter, .mediaNotSupported, .badAddress, .badModel, .encoding, .document,
      .pollsTheDaemon, .mailThroughTheDaemon:
      true
    default: false
    }
  }
}
