public import Foundation

extension CUPSPrinter {
  /// `cups:QUEUE` (or, where a bare name is taken, `QUEUE`): a CUPS queue, on the configured
  /// server. Delivered through a spooler: CUPS' job history is asked before a job is sent again.
  public struct Address: PrinterKind {
    public static let prefixes = ["cups:"]
    public static let syntax = ["cups:QUEUE"]
    /// The queue's name.
    public let queue: String
    /// The CUPS server (nil: CUPS_SERVER, client.conf).
    public let server: String?

    /// Parses `cups:QUEUE` with a queue name that is not empty.
    public init?(parsing address: String, server: String?) {
      let queue = String(address.dropFirst(5))
      guard address.hasPrefix("cups:"), !queue.isEmpty else { return nil }
      (self.queue, self.server) = (queue, server)
    }

    public var address: String { "cups:\(queue)" }
    public var delivery: PrinterDelivery { .spooler(queue: queue, server: server) }
    package func open() throws -> any Printer { try CUPSPrinter(queue: queue, server: server) }
  }
}

extension PrinterAddress {
  /// The CUPS queue `queue` on `server` (nil: CUPS_SERVER, client.conf).
  public static func cups(queue: String, server: String? = nil) -> PrinterAddress {
    precondition(!queue.isEmpty, "a CUPS queue has a name")
    return PrinterAddress(CUPSPrinter.Address(parsing: "cups:\(queue)", server: server)!)
  }
}
