import Foundation

/// The zlib headers of a PDF's streams, read from the bytes by RFC 1950 (2.2), not by our code:
/// what level each stream says it was compressed at.
public enum PDFStreams {
  /// One stream's header: where it starts, whether it is a valid zlib header (CM 8, a 32 KB
  /// window, FCHECK right) and its FLEVEL (0 fastest, 1 fast, 2 default, 3 maximum).
  public struct Header: Sendable, Equatable {
    public var offset: Int
    public var isZlib: Bool
    public var level: Int
  }

  /// The header of every stream of `pdf` (the byte after each `stream` keyword's end of line).
  public static func headers(of pdf: [UInt8]) -> [Header] {
    let keyword = Array("stream".utf8)
    var headers: [Header] = []
    var index = 0
    while index + keyword.count + 3 < pdf.count {
      defer { index += 1 }
      // `endstream` ends a stream; only the keyword that opens one counts.
      guard pdf[index..<index + keyword.count].elementsEqual(keyword), index == 0 || pdf[index - 1] != UInt8(ascii: "d")
      else { continue }
      var start = index + keyword.count
      if pdf[start] == 0x0D { start += 1 }
      guard pdf[start] == 0x0A, start + 2 < pdf.count else { continue }
      let (cmf, flg) = (Int(pdf[start + 1]), Int(pdf[start + 2]))
      headers.append(Header(offset: start + 1, isZlib: cmf == 0x78 && (cmf << 8 | flg) % 31 == 0, level: flg >> 6))
    }
    return headers
  }
}
