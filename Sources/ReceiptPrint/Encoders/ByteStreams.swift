import Foundation

/// Feeds bytes to a libcups read callback.
final class ByteReader {
  private let data: Data
  private var offset = 0
  init(_ data: Data) { self.data = data }

  /// Bytes not read yet.
  var remaining: Int { data.count - offset }

  /// Copies the next `count` bytes; false when fewer remain.
  func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) -> Bool {
    guard offset + count <= data.count else { return false }
    data.copyBytes(to: buffer, from: data.startIndex + offset..<data.startIndex + offset + count)
    offset += count
    return true
  }
}
