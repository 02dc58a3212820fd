public import Foundation

/// A printer's address as users write it (`cups:QUEUE`, `socket://HOST:PORT`, `usb:DEVICE`,
/// `serial:DEVICE?baud=N`, `dir:PATH`): the one place addresses are parsed (``parse(_:bareQueues:server:)``,
/// also for the daemon's configuration) and the one list of printer kinds (``kinds``).
public struct PrinterAddress: Sendable, Equatable, CustomStringConvertible {
  /// Every printer kind (their prefixes do not overlap; with `bareQueues`, a name without a
  /// prefix is a CUPS queue).
  package static let kinds: [any PrinterKind.Type] = [
    CUPSPrinter.Address.self, SocketPrinter.Address.self, DevicePrinter.Address.self, DirectoryPrinter.Address.self,
    CloudPRNTPrinter.Address.self, EpsonSDPPrinter.Address.self, MailPrinter.Address.self,
  ]

  /// The printer, as its kind knows it.
  package let kind: any PrinterKind

  /// An address of one kind.
  package init(_ kind: any PrinterKind) {
    self.kind = kind
  }

  /// Parses an address; nil when it is malformed (a socket without a host or port, an unknown
  /// device option, an empty path or queue) or of no kind. `bareQueues` takes a name without a
  /// prefix as a CUPS queue (the CLI's `--printer NAME`); `server` is the CUPS server of CUPS
  /// queues.
  public static func parse(_ text: String, bareQueues: Bool = true, server: String? = nil) -> PrinterAddress? {
    for kind in kinds where kind.prefixes.contains(where: text.hasPrefix) {
      return kind.init(parsing: text, server: server).map(PrinterAddress.init)
    }
    guard bareQueues else { return nil }
    return CUPSPrinter.Address(parsing: "cups:" + text, server: server).map(PrinterAddress.init)
  }

  /// Every kind's address syntax, for messages (`socket://HOST:PORT`, …).
  public static var syntax: [String] { kinds.flatMap { $0.syntax } }

  /// Opens the printer an address names (nil: the default CUPS queue), on CUPS `server`.
  package static func open(_ address: String?, server: String? = nil) throws -> any Printer {
    guard let address else { return try CUPSPrinter(queue: nil, server: server) }
    guard let parsed = parse(address, server: server) else { throw PrintError.badAddress(address) }
    return try parsed.open()
  }

  /// Opens the printer.
  package func open() throws -> any Printer { try kind.open() }

  /// The address as users write it.
  public var address: String { kind.address }
  /// How the queue hands it a job and learns that it printed.
  public var delivery: PrinterDelivery { kind.delivery }
  public var description: String { address }
  /// The spooler's server, for a kind delivered through one (a CUPS queue's server).
  public var server: String? {
    if case .spooler(_, let server) = delivery { return server }
    return nil
  }

  public static func == (lhs: PrinterAddress, rhs: PrinterAddress) -> Bool { lhs.kind.isSame(as: rhs.kind) }

  /// Whether `socket://HOST[:PORT]` names a host and a port from 1 to 65535.
  public static func isValidSocket(_ uri: String) -> Bool {
    parse(uri)?.kind is SocketPrinter.Address
  }
}
