internal import CHyphen
import Foundation
@_spi(Internals) import ReceiptModel

/// Hyphenation points of words from a language's pattern dictionary, through libhyphen (the
/// hyphenator LibreOffice uses) and Debian's dictionaries (`hyphen-de`, `hyphen-fr`,
/// `hyphen-en-us`, … in `/usr/share/hyphen`, or the directory `RECEIPT_HYPHEN_DIR` names).
///
/// libhyphen's load of a dictionary is slow (2.5 s for Debian's German one), so its result is
/// kept in compiled form between processes (``HyphenDictionaryCache``): a process after the
/// first on a machine reads it in milliseconds.
///
/// Owns its `HyphenDict` and frees it in `deinit` (libhyphen's, or the compiled form's blocks).
/// A dictionary is immutable once loaded and libhyphen keeps no state between calls, so one
/// instance serves every thread.
final class Hyphenator: @unchecked Sendable {
  // @unchecked: `dictionary` is read-only after init; hnj_hyphen_hyphenate2 only reads it.
  private let dictionary: UnsafeMutablePointer<HyphenDict>
  /// The owner of `dictionary` when it was read in compiled form (nil: libhyphen loaded it).
  private let compiled: CompiledHyphenDictionary?
  /// Whether the dictionary's patterns are UTF-8 (else ISO 8859-1, as Debian's German one).
  private let utf8: Bool
  /// Fewest characters kept before and after a hyphen.
  private let leftMin: Int
  private let rightMin: Int

  /// The dictionary file.
  let path: String

  /// Whether the automaton was read in compiled form from the cache (else libhyphen built it).
  var isCompiled: Bool { compiled != nil }

  private init(path: String, dictionary: UnsafeMutablePointer<HyphenDict>, compiled: CompiledHyphenDictionary?) {
    self.path = path
    self.dictionary = dictionary
    self.compiled = compiled
    utf8 = dictionary.pointee.utf8 != 0
    leftMin = max(2, Int(dictionary.pointee.lhmin))
    rightMin = max(2, Int(dictionary.pointee.rhmin))
  }

  /// The dictionary a compiled form describes.
  convenience init(path: String, compiled: CompiledHyphenDictionary) {
    self.init(path: path, dictionary: compiled.dictionary, compiled: compiled)
  }

  deinit {
    if compiled == nil { hnj_hyphen_free(dictionary) }
  }

  /// The dictionary at `path`: its compiled form from `cache` when one holds for the file as it
  /// is now, else libhyphen's load of it (whose compiled form then goes into `cache`); nil when
  /// libhyphen cannot read the file.
  static func load(path: String, cache: HyphenDictionaryCache?) -> Hyphenator? {
    if let cache, let compiled = cache.read(dictionary: path) { return Hyphenator(path: path, compiled: compiled) }
    // The key is taken before the load: a file that changes meanwhile gets a stale key.
    let key = HyphenDictionaryCache.key(for: path)
    guard let dictionary = hnj_hyphen_load(path) else { return nil }
    if let cache, let key, let compiled = CompiledHyphenDictionary.encode(dictionary) {
      cache.write(compiled, dictionary: path, key: key)
    }
    return Hyphenator(path: path, dictionary: dictionary, compiled: nil)
  }

  private static let loaded = Locked<[String: Hyphenator?]>([:])
  private static let found = Locked<[String: String?]>([:])

  /// The directories searched for `hyph_<language>[_<REGION>].dic`.
  static var directories: [String] {
    var result: [String] = []
    if let dir = ProcessInfo.processInfo.environment["RECEIPT_HYPHEN_DIR"], !dir.isEmpty { result.append(dir) }
    result += ["/usr/share/hyphen", "/usr/local/share/hyphen"]
    return result
  }

  /// The dictionary file for a BCP 47 language tag (`de`, `de-CH`, `fr_FR`):
  /// `hyph_<language>_<REGION>.dic`, else `hyph_<language>.dic`, in the first of ``directories``
  /// that has one; nil when none is installed.
  static func dictionaryPath(_ language: String) -> String? {
    found.withLock { cache in
      if let known = cache[language] { return known }
      let parts = language.replacingOccurrences(of: "-", with: "_").split(separator: "_").map(String.init)
      guard let first = parts.first?.lowercased() else { return nil }
      var names: [String] = []
      if parts.count > 1 { names.append("hyph_\(first)_\(parts[parts.count - 1].uppercased()).dic") }
      names.append("hyph_\(first).dic")
      let path = directories.lazy.flatMap { directory in names.lazy.map { directory + "/" + $0 } }
        .first { FileManager.default.fileExists(atPath: $0) }
      cache[language] = path
      return path
    }
  }

  /// Whether a dictionary is installed for a language (without loading it).
  static func isInstalled(_ language: String) -> Bool { !language.isEmpty && dictionaryPath(language) != nil }

  /// The hyphenator for a BCP 47 language tag (`de`, `de-CH`, `fr_FR`), or nil when no dictionary
  /// is installed for it. Dictionaries are loaded once per process (and compiled once per
  /// machine).
  static func forLanguage(_ language: String?) -> Hyphenator? {
    guard let language, !language.isEmpty else { return nil }
    return loaded.withLock { cache in
      if let known = cache[language] { return known }
      let hyphenator = dictionaryPath(language).flatMap { load(path: $0, cache: HyphenDictionaryCache.shared) }
      cache[language] = hyphenator
      return hyphenator
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
    // libhyphen reads the word as a C string too (`strstr` for the dictionary's NOHYPHEN
    // sequences): it ends with a NUL that is not counted (AddressSanitizer caught a read past
    // the end without it).
    let length = bytes.count
    bytes.append(0)
    // libhyphen's buffer is the word's length + 5; one more byte in front, where a match one
    // digit longer than its state could write (libhyphen's own automata never do).
    var buffer = [CChar](repeating: 0, count: length + 6)
    var rep: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = nil
    var pos: UnsafeMutablePointer<Int32>? = nil
    var cut: UnsafeMutablePointer<Int32>? = nil
    let status = buffer.withUnsafeMutableBufferPointer {
      hnj_hyphen_hyphenate2(dictionary, bytes, Int32(length), $0.baseAddress! + 1, nil, &rep, &pos, &cut)
    }
    let hyphens = buffer[1...]
    defer {
      if let rep {
        // Allocated for the word's bytes; entries past its characters stay NULL.
        for i in 0..<length { free(rep[i]) }
        free(rep)
      }
      free(pos)
      free(cut)
    }
    guard status == 0 else { return [] }
    var result: [Int] = []
    for k in 0..<(scalars.count - 1) where hyphens[k + 1] & 1 == 1 {
      // A point after the k-th scalar, not a non-standard one, leaving enough on both sides.
      if let rep, rep[k] != nil { continue }
      guard k + 1 >= leftMin, scalars.count - k - 1 >= rightMin else { continue }
      result.append(units[k])
    }
    return result
  }
}
