public import Foundation

extension DevicePrinter {
  /// `usb:DEVICE` or `serial:DEVICE?baud=N&flow=…`: a raw printer on a local device. Delivered
  /// raw: at least once after a crash, asked its real-time status.
  public struct Address: PrinterKind {
    public static let prefixes = ["usb:", "serial:"]
    public static let syntax = ["usb:DEVICE", "serial:DEVICE?baud=N"]
    /// The printer on that device.
    public let printer: DevicePrinter

    /// Parses `usb:/dev/…` or `serial:/dev/…[?baud=N&flow=none|rtscts|xonxoff]`.
    public init?(parsing address: String, server: String?) {
      guard let printer = DevicePrinter(address: address) else { return nil }
      self.printer = printer
    }

    /// The address with every serial setting spelled out.
    public var address: String { printer.name }
    public var delivery: PrinterDelivery { .raw }
    package func open() throws -> any Printer { printer }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.address == rhs.address }
  }
}
