public import Foundation
import ReceiptPrint

/// Writing output where the user said, without destroying what is there: a regular file is
/// replaced atomically and durably, anything else (a printer device, a FIFO, a symlink's
/// target) is written in place (see ``DurableFile``). Every failure is a one-line
/// ``ReceiptError`` of stage `.output` (exit 73).
public enum OutputFile {
  /// Writes `data` to `path`.
  public static func write(_ data: Data, to path: String) throws {
    try ReceiptError.wrapping { try DurableFile.write(data, to: path) }
  }

  /// Writes `data` to standard output.
  public static func writeStandardOutput(_ data: Data) throws {
    try ReceiptError.wrapping { try DurableFile.writeStandardOutput(data) }
  }
}
