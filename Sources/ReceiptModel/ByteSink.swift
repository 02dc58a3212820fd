public import Foundation

/// Collects bytes from a C library's write callback (cairo, libpng, libcups). They write a few
/// bytes at a time — cairo thousands of calls for one PDF — so the bytes go into an array and
/// become `Data` once (appending to `Data` per call was 2 % of a PDF).
package final class ByteSink {
  // Unchecked: only `append` and `data` reach it, neither while the other runs (a C library
  // calls back on the thread it was called on); the run-time check was 0.3 % of a PDF.
  @exclusivity(unchecked) private var bytes: [UInt8] = []

  package init(capacity: Int = 64 << 10) { bytes.reserveCapacity(capacity) }

  /// Appends `count` bytes from `start`.
  package func append(_ start: UnsafePointer<UInt8>, count: Int) {
    bytes.append(contentsOf: UnsafeBufferPointer(start: start, count: count))
  }

  /// Everything written so far.
  package var data: Data { Data(bytes) }
}
