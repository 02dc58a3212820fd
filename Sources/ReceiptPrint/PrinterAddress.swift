import Foundation

/// Printer addresses as users write them, and the one place they become a ``Printer``.
public enum PrinterAddress {
  /// Opens the printer an address names:
  /// - `socket://HOST[:PORT]`: a raw ESC/POS printer (``SocketPrinter``);
  /// - `dir:PATH`: a directory of PDFs (``DirectoryPrinter``);
  /// - `cups:QUEUE` or a bare queue name: a CUPS queue on `server` (``CUPSPrinter``);
  /// - nil: the default CUPS queue.
  public static func open(_ address: String?, server: String? = nil) throws -> any Printer {
    guard let address else { return try CUPSPrinter(queue: nil, server: server) }
    if address.hasPrefix("socket://") {
      guard let socket = SocketPrinter(uri: address), socket.port > 0 else { throw PrintError.badAddress(address) }
      return socket
    }
    if address.hasPrefix("usb:") || address.hasPrefix("serial:") {
      guard let device = DevicePrinter(address: address) else { throw PrintError.badAddress(address) }
      return device
    }
    if address.hasPrefix("dir:") {
      let path = String(address.dropFirst(4))
      guard !path.isEmpty else { throw PrintError.badAddress(address) }
      return DirectoryPrinter(directory: URL(fileURLWithPath: path))
    }
    let queue = address.hasPrefix("cups:") ? String(address.dropFirst(5)) : address
    guard !queue.isEmpty else { throw PrintError.badAddress(address) }
    return try CUPSPrinter(queue: queue, server: server)
  }

  /// Whether `socket://HOST[:PORT]` names a host and a port from 1 to 65535.
  public static func isValidSocket(_ uri: String) -> Bool {
    guard let socket = SocketPrinter(uri: uri) else { return false }
    return socket.port > 0
  }
}
