public import Foundation
import ReceiptPrint

/// Writing output where the user said, without destroying what is there: a regular file is
/// replaced atomically and durably, anything else (a printer device, a FIFO, a symlink's
/// target) is written in place (see ``DurableFile``). Every failure is a one-line
/// ``ReceiptError`` of stage `.output` (exit 73).
public enum OutputFile {
  /// Writes `data` to `path` (without `durable`: atomically, flushed later by
  /// ``syncFileSystem(of:)``). With `regularOnly` anything but a regular file at `path` (a
  /// symlink, FIFO, device, directory) is an error instead of being written in place.
  public static func write(_ data: Data, to path: String, durable: Bool = true, regularOnly: Bool = false) throws {
    try ReceiptError.wrapping { try DurableFile.write(data, to: path, durable: durable, regularOnly: regularOnly) }
  }

  /// Flushes the file system a path is on (after a batch's writes).
  public static func syncFileSystem(of path: String) throws {
    try ReceiptError.wrapping { try DurableFile.syncFileSystem(of: path) }
  }

  /// The files of an output of `count` parts: `out.png` for one; `out.png`, `out-2.png`, … for
  /// several (a PNG a page).
  public static func names(_ output: String, count: Int) -> [String] {
    if count == 1 { return [output] }  // no URL work for the common case
    let url = URL(fileURLWithPath: output)
    let ext = url.pathExtension
    let base = url.deletingPathExtension().path
    return (0..<count).map { i in
      i == 0 ? output : "\(base)-\(i + 1)" + (ext.isEmpty ? "" : ".\(ext)")
    }
  }

  /// Writes `data` to standard output.
  public static func writeStandardOutput(_ data: Data) throws {
    try ReceiptError.wrapping { try DurableFile.writeStandardOutput(data) }
  }
}
