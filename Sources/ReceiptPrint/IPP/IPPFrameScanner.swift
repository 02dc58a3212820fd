public import Foundation

/// Finds where an IPP message's attributes end, before libcups reads them, and refuses shapes
/// that would hurt the reader: collections nested deeper than ``maxDepth`` (libcups 2.4 reads a
/// collection by recursion: 10,000 levels overflowed the daemon's stack), more than
/// ``maxAttributes`` values, or attributes longer than the caller's limit.
///
/// It reads only the framing of RFC 8010 §3 — a delimiter tag, or a value tag, a name length and
/// name, a value length and value (tag 0x7F takes four more tag octets) — and counts
/// `begCollection` (0x34) against `endCollection` (0x37); the values themselves are libcups'
/// business (``IPPCodec``). It is resumable: bytes arrive in pieces, and each ``scan(_:)`` goes on
/// where the last stopped, so a request trickled byte by byte costs linear time.
public struct IPPFrameScanner: Sendable {
  /// The deepest nesting of collections read (PWG's attributes nest three or four levels).
  public static let maxDepth = 16
  /// The most attribute values (members and out-of-band values count) a request may have.
  public static let maxAttributes = 10_000

  /// What the bytes seen so far are.
  public enum Result: Equatable, Sendable {
    /// The attributes go on past the bytes given.
    case needMore
    /// The attributes (header included) are the first `length` bytes; the document follows.
    case complete(length: Int)
    /// Not a message receipt reads; why, for the client.
    case invalid(String)
  }

  private let limit: Int
  /// Where the next tag starts.
  private var next = 8
  private var depth = 0
  private var values = 0

  /// A scanner for attribute parts of at most `limit` bytes.
  public init(limit: Int) {
    self.limit = limit
  }

  /// Scans `bytes`, the message's first bytes (all of them so far, from its start).
  public mutating func scan(_ bytes: Data) -> Result {
    bytes.withUnsafeBytes { scan(UnsafeRawBufferPointer($0)) }
  }

  private mutating func scan(_ bytes: UnsafeRawBufferPointer) -> Result {
    func u16(_ at: Int) -> Int { Int(bytes[at]) << 8 | Int(bytes[at + 1]) }
    while true {
      guard next < limit else { return .invalid("the request's attributes are over \(limit / 1024) KiB") }
      guard next < bytes.count else { return .needMore }
      let tag = bytes[next]
      if tag < 0x10 {
        // A delimiter: end-of-attributes (0x03) ends the part, any other starts a group.
        guard tag != 0x03 else {
          guard depth == 0 else { return .invalid("a collection is not closed before the end of the attributes") }
          return .complete(length: next + 1)
        }
        next += 1
        continue
      }
      // A value: tag [4 more tag octets], name length, name, value length, value.
      var at = next + 1
      if tag == 0x7F { at += 4 }
      guard at + 2 <= bytes.count else { return .needMore }
      at += 2 + u16(at)
      guard at + 2 <= bytes.count else { return at + 2 > limit ? .invalid(tooLong) : .needMore }
      at += 2 + u16(at)
      guard at <= bytes.count else { return at > limit ? .invalid(tooLong) : .needMore }
      values += 1
      guard values <= Self.maxAttributes else {
        return .invalid("the request has more than \(Self.maxAttributes) attribute values")
      }
      if tag == 0x34 {
        depth += 1
        guard depth <= Self.maxDepth else {
          return .invalid("collections nest deeper than \(Self.maxDepth) levels")
        }
      } else if tag == 0x37 {
        guard depth > 0 else { return .invalid("endCollection without begCollection") }
        depth -= 1
      }
      next = at
    }
  }

  private var tooLong: String { "the request's attributes are over \(limit / 1024) KiB" }
}
