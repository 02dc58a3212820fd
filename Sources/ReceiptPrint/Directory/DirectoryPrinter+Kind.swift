public import Foundation

extension DirectoryPrinter {
  /// `dir:PATH`: a directory that receives one PDF per job. Delivered as files: a job whose
  /// file is there printed, so it is written once.
  public struct Address: PrinterKind {
    public static let prefixes = ["dir:"]
    public static let syntax = ["dir:PATH"]
    /// The directory.
    public let directory: URL

    /// Parses `dir:PATH` with a path that is not empty.
    public init?(parsing address: String, server: String?) {
      let path = String(address.dropFirst(4))
      guard address.hasPrefix("dir:"), !path.isEmpty else { return nil }
      directory = URL(fileURLWithPath: path)
    }

    public var address: String { "dir:\(directory.path)" }
    public var delivery: PrinterDelivery { .files(directory: directory) }
    package func open() throws -> any Printer { DirectoryPrinter(directory: directory) }
  }
}

extension PrinterAddress {
  /// The directory printer writing into `directory`.
  public static func directory(_ directory: URL) -> PrinterAddress {
    PrinterAddress(DirectoryPrinter.Address(parsing: "dir:\(directory.path)", server: nil)!)
  }
}
