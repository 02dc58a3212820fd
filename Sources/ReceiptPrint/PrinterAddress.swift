public import Foundation

/// Printer addresses as users write them: the one place they are parsed (``parse(_:)``, also for
/// the daemon's configuration) and become a ``Printer`` (``open(_:server:)``). To add a printer
/// kind, add its case here, its ``Printer`` type beside the others, and its `PrinterTarget` case
/// (ReceiptKit) if the daemon should take it.
public enum PrinterAddress: Sendable, Equatable {
  /// `cups:QUEUE` or a bare queue name: a CUPS queue (``CUPSPrinter``).
  case cups(queue: String)
  /// `socket://HOST[:PORT]`: a raw ESC/POS printer on the network (``SocketPrinter``).
  case socket(String)
  /// `usb:DEVICE`, `serial:DEVICE?baud=…&flow=…`: a raw printer on a local device (``DevicePrinter``).
  case device(String)
  /// `dir:PATH`: a directory of PDFs (``DirectoryPrinter``).
  case directory(URL)

  /// Parses an address; nil when it is malformed (a socket without a host or port, an unknown
  /// device option, an empty path or queue). `bareQueues` takes a name without a prefix as a CUPS
  /// queue (the CLI's `--printer NAME`).
  public static func parse(_ text: String, bareQueues: Bool = true) -> PrinterAddress? {
    if text.hasPrefix("socket://") {
      guard let socket = SocketPrinter(uri: text), socket.port > 0 else { return nil }
      return .socket(text)
    }
    if text.hasPrefix("usb:") || text.hasPrefix("serial:") {
      return DevicePrinter(address: text).map { .device($0.name) }
    }
    if text.hasPrefix("dir:") {
      let path = String(text.dropFirst(4))
      return path.isEmpty ? nil : .directory(URL(fileURLWithPath: path))
    }
    guard text.hasPrefix("cups:") || bareQueues else { return nil }
    let queue = text.hasPrefix("cups:") ? String(text.dropFirst(5)) : text
    return queue.isEmpty ? nil : .cups(queue: queue)
  }

  /// Opens the printer an address names (nil: the default CUPS queue), on CUPS `server`.
  public static func open(_ address: String?, server: String? = nil) throws -> any Printer {
    guard let address else { return try CUPSPrinter(queue: nil, server: server) }
    guard let parsed = parse(address) else { throw PrintError.badAddress(address) }
    switch parsed {
    case .cups(let queue): return try CUPSPrinter(queue: queue, server: server)
    case .socket(let uri): return SocketPrinter(uri: uri)!
    case .device(let name): return DevicePrinter(address: name)!
    case .directory(let url): return DirectoryPrinter(directory: url)
    }
  }

  /// Whether `socket://HOST[:PORT]` names a host and a port from 1 to 65535.
  public static func isValidSocket(_ uri: String) -> Bool {
    if case .socket = parse(uri) { true } else { false }
  }
}
