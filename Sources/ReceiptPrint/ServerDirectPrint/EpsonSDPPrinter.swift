import Foundation

/// An Epson printer with Server Direct Print (TM-m30III, TM-T88VI/VII, TM-m50, the TM-i
/// series): it `POST`s `ConnectionType=GetRequest&ID=…` to a server at an interval, prints the
/// ePOS-Print XML it is answered with, and `POST`s the result (`ConnectionType=SetResponse`)
/// (Epson Server Direct Print User's Manual, "Request and Response"). Like a CloudPRNT printer
/// it is a printer of the daemon's queue only: `receipt print` cannot push to it.
///
/// Its jobs are ePOS-Print XML whose `<image>`s are the receipt's dots at the model's width
/// (``EPOSPrintEncoder``).
public struct EpsonSDPPrinter: PollingPrinter {
  /// The ID set in the printer's Server Direct Print settings (its requests carry it).
  public let id: String

  /// The printer with that ID.
  public init(id: String) {
    self.id = id
  }

  public var name: String { "epson-sdp:\(id)" }
  /// ePOS-Print XML, at the resolution the job's model gives.
  public var capabilities: PrinterCapabilities { PrinterCapabilities(format: .eposPrint) }

  /// `epson-sdp:ID`: the printer polls the daemon with the ID of its Server Direct Print settings.
  public struct Address: PrinterKind {
    public static let prefixes = ["epson-sdp:"]
    public static let syntax = ["epson-sdp:ID"]
    /// The printer's Server Direct Print ID.
    public let id: String

    /// Parses `epson-sdp:` and an ID of 1 to 64 letters, digits, `.`, `_` or `-`.
    public init?(parsing address: String, server: String?) {
      let id = String(address.dropFirst(10))
      guard address.hasPrefix("epson-sdp:"), Self.isValid(id) else { return nil }
      self.id = id
    }

    /// Whether `id` can be a printer's ID here.
    public static func isValid(_ id: String) -> Bool {
      (1...64).contains(id.count)
        && id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "_" || $0 == "-") }
    }

    public var address: String { "epson-sdp:\(id)" }
    public var delivery: PrinterDelivery { .polled(device: address) }
    package func open() throws -> any Printer { EpsonSDPPrinter(id: id) }
  }
}
