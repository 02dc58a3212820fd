import Foundation

/// A string compared and hashed by its UTF-8 bytes, for tables whose answers depend on the
/// exact characters: Swift's `String` equality and hash go by canonical equivalence, so "Å" as
/// U+212B ANGSTROM SIGN and as U+00C5 are one key there, and a table keyed by `String` hands
/// one the other's parsed template text or laid-out paragraph.
package struct ExactText: Hashable, Sendable {
  package let string: String

  package init(_ string: String) { self.string = string }

  package static func == (a: Self, b: Self) -> Bool { sameBytes(a.string, b.string) }

  package func hash(into hasher: inout Hasher) { Self.hashBytes(of: string, into: &hasher) }

  /// Whether two strings have the same UTF-8 bytes.
  package static func sameBytes(_ a: String, _ b: String) -> Bool {
    let same = a.utf8.withContiguousStorageIfAvailable { x in
      b.utf8.withContiguousStorageIfAvailable { y in
        x.count == y.count && (x.isEmpty || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0)
      }
    }
    if let same, let same { return same }
    return a.utf8.elementsEqual(b.utf8)
  }

  /// Whether a string's UTF-8 holds a byte of `least` or more. Characters from U+0080 on start
  /// with a byte of 0xC2 or more (U+0590 with 0xD6, U+FDD0 with 0xEF), so a check for such
  /// characters can pass over most texts with a scan of their bytes in place.
  package static func hasByte(atLeast least: UInt8, in string: String) -> Bool {
    string.utf8.withContiguousStorageIfAvailable { $0.contains { $0 >= least } }
      ?? string.utf8.contains { $0 >= least }
  }

  /// Feeds a string's UTF-8 bytes to a hasher.
  package static func hashBytes(of string: String, into hasher: inout Hasher) {
    let hashed = string.utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    if hashed == nil { for byte in string.utf8 { hasher.combine(byte) } }
    hasher.combine(string.utf8.count)
  }
}
