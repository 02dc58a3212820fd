public import Foundation

/// A kind of printer, in one place: how its addresses are written (``prefixes``, ``syntax``,
/// ``init(parsing:server:)``), how one is opened (``open()``: a ``Printer``) and how a queue
/// knows that a job it handed over printed (``delivery``). The kinds are listed once, in
/// ``PrinterAddress/kinds``; nothing else switches over them.
///
/// To add a printer kind: its ``Printer`` type in a folder of its own, an address type
/// conforming to this protocol beside it (see `SocketPrinter+Kind.swift`), and a line in
/// ``PrinterAddress/kinds``. The daemon's configuration, `receipt print --printer`, the CLI's
/// error messages and the queue's workers take it from there.
package protocol PrinterKind: Sendable, Equatable {
  /// The prefixes its addresses start with (`socket://`, `usb:`).
  static var prefixes: [String] { get }
  /// How its addresses are written, for messages (`socket://HOST:PORT`).
  static var syntax: [String] { get }
  /// Parses one of its addresses (a text starting with one of ``prefixes``); nil when it is
  /// malformed. `server` is the CUPS server of the configuration, for kinds that use one.
  init?(parsing address: String, server: String?)
  /// The address as users write it.
  var address: String { get }
  /// How the daemon's queue hands a job to it and learns that it printed.
  var delivery: PrinterDelivery { get }
  /// Opens the printer.
  func open() throws -> any Printer
}

extension PrinterKind {
  /// Whether `other` is the same printer (of the same kind).
  func isSame(as other: any PrinterKind) -> Bool {
    guard let other = other as? Self else { return false }
    return self == other
  }
}

/// How a queue hands a job to a printer and learns that it printed — what decides the worker's
/// rules for a kind: whether a job may be sent again after a crash, what is asked first, and
/// what "printed" means.
public enum PrinterDelivery: Sendable, Equatable {
  /// A spooler with a job history (CUPS): asked for an earlier job of the same name before one
  /// is sent again; the job is followed until the spooler says it completed.
  case spooler(queue: String, server: String?)
  /// Files that are there or not (a directory): a job whose file exists printed; written once.
  case files(directory: URL)
  /// Bytes to a device without a history (a socket, USB, a serial line): recorded as sent before
  /// the first byte, so one interrupted prints again marked as a reprint; asked ESC/POS
  /// real-time status before each job unless its model has none.
  case raw
  /// A device that polls the daemon for its next job and confirms it (Star CloudPRNT, Epson
  /// Server Direct Print): the job is drawn and offered; printed means the device confirmed it;
  /// one fetched and never confirmed is offered again after a deadline, marked as a reprint.
  /// `device` is its address (how the daemon's protocol routes find it).
  case polled(device: String)
  /// An e-mail handed to the machine's mail transport (`sendmail`): printed means the transport
  /// took it; a handoff cut off by a crash is known from its files, so no message goes twice.
  /// `recipient` is the destination's fixed address, or nil when each job names one.
  case mail(recipient: String?)
}
