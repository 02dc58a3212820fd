public import Foundation
package import ReceiptLayout

/// E-receipts: a destination of the daemon's queue like a printer, whose "paper" is an e-mail —
/// the receipt's PDF attached to a plain-text message, handed to the machine's mail transport
/// (``MailHandoff``). Printed means handed over: the transport took the message (exit 0); bounces
/// are the transport's business. `mail:` sends each job to the address the job names;
/// `mail:ADDRESS` sends every job to one (an accountant's inbox, an archive).
///
/// A message needs the job's recipient, the shop's sender address and a handoff that survives a
/// crash, which only the daemon has: `receipt print --printer mail:…` is
/// ``PrintError/mailThroughTheDaemon(_:)``.
public struct MailPrinter: Printer {
  /// The fixed recipient, or nil: each job names its own.
  public let recipient: String?

  public init(recipient: String?) {
    self.recipient = recipient
  }

  public var name: String { "mail:\(recipient ?? "")" }
  public var capabilities: PrinterCapabilities { PrinterCapabilities(format: .pdf) }

  /// Always ready: the transport queues what it cannot deliver yet.
  public func status() throws -> PrinterStatus {
    PrinterStatus(state: .idle, message: "e-mail through the machine's mail transport")
  }

  /// Refused: e-receipts go through the daemon's queue.
  package func send(_ document: Data, of receipt: LaidOutReceipt, job: PrintJob) throws -> Int? {
    throw PrintError.mailThroughTheDaemon(name)
  }

  /// `mail:` or `mail:ADDRESS`.
  public struct Address: PrinterKind {
    public static let prefixes = ["mail:"]
    public static let syntax = ["mail:[ADDRESS]"]
    /// The fixed recipient, or nil.
    public let recipient: String?

    /// Parses `mail:` (each job's own recipient) or `mail:` and one address.
    public init?(parsing address: String, server: String?) {
      guard address.hasPrefix("mail:") else { return nil }
      let rest = String(address.dropFirst(5))
      if rest.isEmpty {
        recipient = nil
      } else {
        guard MailMessage.isAddress(rest) else { return nil }
        recipient = rest
      }
    }

    public var address: String { "mail:\(recipient ?? "")" }
    public var delivery: PrinterDelivery { .mail(recipient: recipient) }
    package func open() throws -> any Printer { MailPrinter(recipient: recipient) }
  }
}
