internal import CHyphen
import Foundation

/// Hyphenation points of words from a language's pattern dictionary, through libhyphen (the
/// hyphenator LibreOffice uses) and Debian's dictionaries (`hyphen-de`, `hyphen-fr`,
/// `hyphen-en-us`, … in `/usr/share/hyphen`, or the directory `RECEIPT_HYPHEN_DIR` names).
///
/// Owns its `HyphenDict` and frees it in `deinit`. A dictionary is immutable once loaded and
/// libhyphen keeps no state between calls, so one instance serves every thread.
final class Hyphenator: @unchecked Sendable {
  // @unchecked: `dictionary` is read-only after init; hnj_hyphen_hyphenate2 only reads it.
  private let dictionary: UnsafeMutablePointer<HyphenDict>
  /// Whether the dictionary's patterns are UTF-8 (else ISO 8859-1, as Debian's German one).
  private let utf8: Bool
  /// Fewest characters kept before and after a hyphen.
  private let leftMin: Int
  private let rightMin: Int

  /// The dictionary file.
  let path: String

  private init?(path: String) {
    guard let dictionary = hnj_hyphen_load(path) else { return nil }
    self.path = path
    self.dictionary = dictionary
    utf8 = dictionary.pointee.utf8 != 0
    leftMin = max(2, Int(dictionary.pointee.lhmin))
    rightMin = max(2, Int(dictionary.pointee.rhmin))
  }

  deinit {
    hnj_hyphen_free(dictionary)
  }

  private static let loaded = Locked<[String: Hyphenator?]>([:])

  /// The directories searched for `hyph_<language>[_<REGION>].dic`.
  static var directories: [String] {
    var result: [String] = []
    if let dir = ProcessInfo.processInfo.environment["RECEIPT_HYPHEN_DIR"], !dir.isEmpty { result.append(dir) }
    result += ["/usr/share/hyphen", "/usr/local/share/hyphen"]
    return result
  }

  /// The hyphenator for a BCP 47 language tag (`de`, `de-CH`, `fr_FR`), or nil when no dictionary
  /// is installed for it. Dictionaries are loaded once per process.
  static func forLanguage(_ language: String?) -> Hyphenator? {
    guard let language, !language.isEmpty else { return nil }
    return loaded.withLock { cache in
      if let known = cache[language] { return known }
      let parts = language.replacingOccurrences(of: "-", with: "_").split(separator: "_").map(String.init)
      var names: [String] = []
      if parts.count > 1 { names.append("hyph_\(parts[0].lowercased())_\(parts[parts.count - 1].uppercased()).dic") }
      names.append("hyph_\(parts[0].lowercased()).dic")
      var found: Hyphenator?
      search: for directory in directories {
        for name in names {
          let path = directory + "/" + name
          if FileManager.default.fileExists(atPath: path), let h = Hyphenator(path: path) {
            found = h
            break search
          }
        }
      }
      cache[language] = found
      return found
    }
  }

  /// Where a word may be hyphenated: UTF-16 offsets into `word` after which a line may end with a
  /// hyphen. Points the dictionary marks as non-standard (a spelling change, as old German `ck`
  /// → `k-k`) are left out; so are words that do not fit the dictionary's character set.
  ///
  /// libhyphen reads the word as bytes in the dictionary's encoding, but returns `hyphens` (and
  /// `rep`, `pos`, `cut`) indexed by character: for a UTF-8 dictionary it folds its byte-indexed
  /// result back to characters (`hnj_hyphen_norm`; see the note in hyphen.h), and an ISO 8859-1
  /// one has a byte per character. So entry `k` is the point after the word's `k`-th scalar.
  func points(in word: ArraySlice<UInt16>) -> [Int] {
    let scalars = String(decoding: word, as: UTF16.self).unicodeScalars
    guard scalars.count >= leftMin + rightMin, scalars.count <= 60 else { return [] }
    // Bytes in the dictionary's encoding, lower-cased per scalar, and the UTF-16 offset after
    // each scalar.
    var bytes: [CChar] = []
    var units: [Int] = []
    var offset = 0
    for scalar in scalars {
      let lower = scalar.properties.lowercaseMapping.unicodeScalars
      let mapped = lower.count == 1 ? lower.first! : scalar
      if utf8 {
        for byte in String(mapped).utf8 { bytes.append(CChar(bitPattern: byte)) }
      } else {
        guard mapped.value < 0x100 else { return [] }
        bytes.append(CChar(bitPattern: UInt8(mapped.value)))
      }
      offset += scalar.utf16.count
      units.append(offset)
    }
    var hyphens = [CChar](repeating: 0, count: bytes.count + 5)
    var rep: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = nil
    var pos: UnsafeMutablePointer<Int32>? = nil
    var cut: UnsafeMutablePointer<Int32>? = nil
    let status = hnj_hyphen_hyphenate2(dictionary, bytes, Int32(bytes.count), &hyphens, nil, &rep, &pos, &cut)
    defer {
      if let rep {
        // Allocated for the word's bytes; entries past its characters stay NULL.
        for i in 0..<bytes.count { free(rep[i]) }
        free(rep)
      }
      free(pos)
      free(cut)
    }
    guard status == 0 else { return [] }
    var result: [Int] = []
    for k in 0..<(scalars.count - 1) where hyphens[k] & 1 == 1 {
      // A point after the k-th scalar, not a non-standard one, leaving enough on both sides.
      if let rep, rep[k] != nil { continue }
      guard k + 1 >= leftMin, scalars.count - k - 1 >= rightMin else { continue }
      result.append(units[k])
    }
    return result
  }
}
