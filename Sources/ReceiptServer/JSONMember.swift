import Foundation

/// The bytes of one member's value in a JSON object, taken from the document as received
/// (the body was already parsed once, so it is valid JSON). Re-serializing the order with
/// JSONSerialization cost a fifth of a submission's CPU; slicing it costs nothing.
enum JSONMember {
  /// The value of top-level member `name` (the last one, as JSONSerialization keeps), or nil.
  static func value(of name: String, in document: Data) -> Data? {
    let bytes = [UInt8](document)
    var i = 0
    func skipSpace() { while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 } }
    /// Skips a string starting at `i` (a quote); returns its raw bytes with the quotes.
    func skipString() -> Range<Int>? {
      let start = i
      i += 1
      while i < bytes.count {
        if bytes[i] == 0x5C {  // backslash: skip the escaped byte
          i += 2
        } else if bytes[i] == 0x22 {
          i += 1
          return start..<i
        } else {
          i += 1
        }
      }
      return nil
    }
    /// Skips any value starting at `i`.
    func skipValue() -> Bool {
      var depth = 0
      repeat {
        guard i < bytes.count else { return false }
        switch bytes[i] {
        case 0x22: guard skipString() != nil else { return false }
        case 0x7B, 0x5B:
          depth += 1
          i += 1
        case 0x7D, 0x5D:
          depth -= 1
          i += 1
        case 0x2C, 0x3A, 0x20, 0x09, 0x0A, 0x0D:
          if depth == 0 { return true }
          i += 1
        default: i += 1
        }
      } while depth > 0
      return true
    }
    skipSpace()
    guard i < bytes.count, bytes[i] == 0x7B else { return nil }
    i += 1
    var found: Range<Int>?
    while true {
      skipSpace()
      guard i < bytes.count, bytes[i] == 0x22, let keyRange = skipString() else { return found.map { document[$0] } }
      let key = try? JSONSerialization.jsonObject(with: Data(bytes[keyRange]), options: .fragmentsAllowed) as? String
      skipSpace()
      guard i < bytes.count, bytes[i] == 0x3A else { return nil }
      i += 1
      skipSpace()
      let start = i
      guard skipValue() else { return nil }
      if key == name { found = start..<i }
      skipSpace()
      guard i < bytes.count, bytes[i] == 0x2C else { return found.map { document[$0] } }
      i += 1
    }
  }
}
