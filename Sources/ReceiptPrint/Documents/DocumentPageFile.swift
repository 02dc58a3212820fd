package import Foundation
package import ReceiptLayout
import ReceiptModel
import ReceiptRender

#if canImport(Glibc)
  import Glibc
#endif

/// The pages a document reader process hands back (``ContainedDocumentReader``): a file of
/// gray pages, each a fixed header and its pixels. It is read as untrusted as the document was —
/// every header is checked against ``DocumentPages``' bounds before its pixels are allocated, and
/// pixels are read straight into the page's own storage, so the daemon never holds two copies.
///
/// Layout (big-endian): magic `RCPTPGS1`, then per page: width (u32), height (u32), width and
/// length in points (IEEE 754 binary64 bit patterns, u64 each), bilevel (u8), then
/// width × height gray bytes (0 black, 255 white).
package enum DocumentPageFile {
  static let magic = Array("RCPTPGS1".utf8)
  static let headerBytes = 4 + 4 + 8 + 8 + 1

  /// Writes `pages` to `fd`.
  static func write(_ pages: [DocumentPage], to fd: Int32) throws {
    try writeAll(magic, to: fd)
    for page in pages {
      var header: [UInt8] = []
      func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.bigEndian) { header += $0 } }
      append(UInt32(page.image.width))
      append(UInt32(page.image.height))
      append(page.width.bitPattern)
      append(page.length.bitPattern)
      header.append(page.isBilevel ? 1 : 0)
      try writeAll(header, to: fd)
      try page.image.pixels.withUnsafeBytes { try writeAll($0, to: fd) }
    }
  }

  /// Reads the pages of a page file's bytes (the fuzzer's way in).
  package static func read(_ data: Data) throws -> [DocumentPage] {
    let file = try TemporaryFile(data, suffix: ".pages")
    defer { file.remove() }
    let fd = open(file.path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw PrintError.document("cannot open \(file.path)") }
    defer { close(fd) }
    return try read(fd)
  }

  /// Reads the pages of `fd` (positioned at its start), within the bounds.
  static func read(_ fd: Int32) throws -> [DocumentPage] {
    func fail(_ why: String) -> PrintError { .document("the document reader's pages are not usable: \(why)") }
    var magicBytes = [UInt8](repeating: 0, count: magic.count)
    guard try readExactly(fd, into: &magicBytes), magicBytes == magic else { throw fail("no page file") }
    var pages: [DocumentPage] = []
    var pixels = 0
    var header = [UInt8](repeating: 0, count: headerBytes)
    while try readExactly(fd, into: &header) {
      func u32(_ at: Int) -> Int { header[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
      func f64(_ at: Int) -> Double {
        Double(bitPattern: header[at..<at + 8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
      }
      let (width, height, points, length) = (u32(0), u32(4), f64(8), f64(16))
      guard (1...16_384).contains(width), (1...65_536).contains(height) else {
        throw fail("page \(pages.count + 1) is \(width) × \(height) pixels")
      }
      guard points.isFinite, length.isFinite, points > 0, length > 0, points < 1e6, length < 1e6 else {
        throw fail("page \(pages.count + 1) has no size")
      }
      pixels += width * height
      guard pages.count < DocumentPages.maxPages, pixels <= DocumentPages.maxPrintedPixels else {
        throw fail("over \(DocumentPages.maxPages) pages or \(DocumentPages.maxPrintedPixels >> 20) million pixels")
      }
      var gray = [UInt8](repeating: 0, count: width * height)
      guard try readExactly(fd, into: &gray) else { throw fail("page \(pages.count + 1) is cut short") }
      pages.append(
        DocumentPage(
          image: GrayImage(width: width, height: height, pixels: gray), width: points, length: length,
          isBilevel: header[24] == 1))
    }
    return pages
  }

  /// Fills `buffer` from `fd`: true when filled, false at the end of the file before any byte,
  /// an error when the file ends part-way.
  private static func readExactly(_ fd: Int32, into buffer: inout [UInt8]) throws -> Bool {
    let wanted = buffer.count
    let got = buffer.withUnsafeMutableBytes { raw -> Int in
      var offset = 0
      while offset < wanted {
        let n = Glibc.read(fd, raw.baseAddress! + offset, wanted - offset)
        if n < 0, errno == EINTR { continue }
        guard n > 0 else { break }
        offset += n
      }
      return offset
    }
    guard got == wanted else {
      if got == 0 { return false }
      throw PrintError.document("the document reader's pages are not usable: the file ends part-way")
    }
    return true
  }

  private static func writeAll(_ bytes: some ContiguousBytes, to fd: Int32) throws {
    try bytes.withUnsafeBytes { raw in
      var offset = 0
      while offset < raw.count {
        let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
        if n < 0, errno == EINTR { continue }
        guard n > 0 else {
          throw PrintError.output("cannot write the document's pages: \(String(cString: strerror(errno)))")
        }
        offset += n
      }
    }
  }
}
