import Foundation

/// A Star CloudPRNT printer (mC-Print3, TSP100IV, TSP650II with the CloudPRNT interface): it
/// polls the daemon over HTTP(S) for its next job and confirms each one it printed (Star
/// CloudPRNT Protocol Guide, "CloudPRNT HTTP Method"). Nothing can be pushed to it: the daemon
/// keeps its jobs until it asks (`POST` poll → `GET` job → `DELETE` confirmation), so
/// `receipt print` cannot reach it; it is a printer of the daemon's queue only.
///
/// Its jobs are Star raster at the model's dots (``StarRasterEncoder``: `ESC * r A` … `ESC * r B`),
/// offered as the media types of ``mediaTypes``.
public struct CloudPRNTPrinter: PollingPrinter {
  /// The device's MAC address (`printerMAC` of its polls), twelve lower-case hex digits with colons.
  public let mac: String

  /// The printer with that MAC address.
  public init(mac: String) {
    self.mac = mac
  }

  public var name: String { "cloudprnt:\(mac)" }
  /// Star raster, at the resolution the job's model gives.
  public var capabilities: PrinterCapabilities { PrinterCapabilities(format: .escpos) }

  /// The media types a job is offered in, most preferred first: StarPRNT mode (mC-Print3,
  /// TSP100IV) and Star Line mode (TSP650II with the HI01X interface) take the same raster
  /// commands (Star's Content Media Types list; STAR Line Mode Command Specifications, raster mode).
  public static let mediaTypes = ["application/vnd.star.starprnt", "application/vnd.star.line"]

  /// `cloudprnt:MAC`: the printer polls the daemon, identified by its MAC address.
  public struct Address: PrinterKind {
    public static let prefixes = ["cloudprnt:"]
    public static let syntax = ["cloudprnt:MAC"]
    /// The device's MAC address, normalized.
    public let mac: String

    /// Parses `cloudprnt:` and a MAC address (twelve hex digits, with `:` or `-` between pairs or
    /// none), kept as lower-case pairs joined by `:`.
    public init?(parsing address: String, server: String?) {
      guard address.hasPrefix("cloudprnt:"), let mac = Self.normalized(String(address.dropFirst(10))) else {
        return nil
      }
      self.mac = mac
    }

    /// A MAC address as twelve lower-case hex digits in pairs joined by `:`; nil when it is not one.
    public static func normalized(_ text: String) -> String? {
      let digits = text.lowercased().filter { $0 != ":" && $0 != "-" }
      guard digits.count == 12, digits.allSatisfy({ $0.isASCII && $0.isHexDigit }) else { return nil }
      let pairs = stride(from: 0, to: 12, by: 2).map { i in
        String(digits[digits.index(digits.startIndex, offsetBy: i)...].prefix(2))
      }
      return pairs.joined(separator: ":")
    }

    public var address: String { "cloudprnt:\(mac)" }
    public var delivery: PrinterDelivery { .polled(device: address) }
    package func open() throws -> any Printer { CloudPRNTPrinter(mac: mac) }
  }
}
