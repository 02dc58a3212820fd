public import Foundation

extension SocketPrinter {
  /// `socket://HOST[:PORT]`: a raw ESC/POS (or Star) printer on the network, port 9100 unless
  /// given. Delivered raw: at least once after a crash, asked its real-time status.
  public struct Address: PrinterKind {
    public static let prefixes = ["socket://"]
    public static let syntax = ["socket://HOST:PORT"]
    /// The printer at that address.
    public let printer: SocketPrinter

    /// Parses `socket://HOST[:PORT]` with a port from 1 to 65535.
    public init?(parsing address: String, server: String?) {
      guard let printer = SocketPrinter(uri: address), printer.port > 0 else { return nil }
      self.printer = printer
    }

    public var address: String { printer.name }
    public var delivery: PrinterDelivery { .raw }
    package func open() throws -> any Printer { printer }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.address == rhs.address }
  }
}

extension PrinterAddress {
  /// The raw printer at `host`, port `port` (1…65535).
  public static func socket(host: String, port: Int) -> PrinterAddress {
    precondition((1...65535).contains(port), "a TCP port is 1…65535, not \(port)")
    return PrinterAddress(SocketPrinter.Address(parsing: "socket://\(host):\(port)", server: nil)!)
  }
}
