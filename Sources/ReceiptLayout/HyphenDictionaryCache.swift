internal import CHyphen
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Compiled hyphenation dictionaries (``CompiledHyphenDictionary``) kept between processes, so
/// that only the first process on a machine pays libhyphen's load of a dictionary (2.5 s for
/// Debian's German one).
///
/// One file per dictionary, `<dictionary file name>-<hash of its real path>.compiled`, in
/// `$RECEIPT_HYPHEN_CACHE` (a directory; `off` turns the cache off), else `receipt/hyphen` in
/// `$XDG_CACHE_HOME` or `~/.cache` — beside the font match cache. A file is used only while its
/// key holds: the format's version, the dictionary's real path, size and modification time, and
/// the libhyphen library's path, size and modification time (its automaton's layout). A stale,
/// truncated or damaged file (a checksum covers every byte) is ignored and replaced; files are
/// written to a temporary name and renamed, so two processes writing at once each leave a whole
/// file, and a directory that cannot be written leaves the cache off.
struct HyphenDictionaryCache: Sendable {
  let directory: String

  private static let magic = Array("RCPTHYPH".utf8)

  /// The cache of this environment, nil when it is off or there is no home to keep it in.
  static let shared: HyphenDictionaryCache? = defaultDirectory().map(HyphenDictionaryCache.init)

  static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
    if let given = environment["RECEIPT_HYPHEN_CACHE"], !given.isEmpty {
      return given == "off" ? nil : given
    }
    if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") { return cache + "/receipt/hyphen" }
    guard let home = environment["HOME"], home.hasPrefix("/") else { return nil }
    return home + "/.cache/receipt/hyphen"
  }

  /// What a compiled file depends on, and its file name; nil when the dictionary cannot be
  /// examined.
  static func key(for dictionary: String) -> (key: String, file: String)? {
    guard let real = realpath(dictionary, nil) else { return nil }
    defer { free(real) }
    let path = String(cString: real)
    guard let stamp = stamp(path) else { return nil }
    let name = (path as NSString).lastPathComponent
    let key = "format \(CompiledHyphenDictionary.formatVersion)\nlibhyphen \(library)\ndictionary \(path) \(stamp)"
    return (key, "\(name)-\(String(hash(Array(path.utf8)), radix: 16)).compiled")
  }

  /// The compiled dictionary for a `.dic` file, nil when there is none that holds.
  func read(dictionary: String) -> CompiledHyphenDictionary? {
    guard let (key, name) = Self.key(for: dictionary),
      let data = try? Data(contentsOf: URL(fileURLWithPath: directory + "/" + name), options: .mappedIfSafe)
    else { return nil }
    return data.withUnsafeBytes { bytes -> CompiledHyphenDictionary? in
      let keyBytes = Array(key.utf8)
      let header = Self.magic.count + 4 + keyBytes.count + 16
      guard bytes.count >= header, Array(bytes[0..<Self.magic.count]) == Self.magic,
        bytes.loadUnaligned(fromByteOffset: Self.magic.count, as: UInt32.self) == UInt32(keyBytes.count),
        Array(bytes[(Self.magic.count + 4)..<(Self.magic.count + 4 + keyBytes.count)]) == keyBytes
      else { return nil }
      let length = bytes.loadUnaligned(fromByteOffset: header - 16, as: UInt64.self)
      let checksum = bytes.loadUnaligned(fromByteOffset: header - 8, as: UInt64.self)
      let payload = UnsafeRawBufferPointer(rebasing: bytes[header...])
      guard length == UInt64(payload.count), Self.hash(payload) == checksum else { return nil }
      return CompiledHyphenDictionary(payload)
    }
  }

  /// Writes the compiled form of a dictionary that was loaded from `dictionary` when its key was
  /// `key`; failures leave things as they were.
  func write(_ payload: [UInt8], dictionary: String, key: (key: String, file: String)) {
    var file = Self.magic
    let keyBytes = Array(key.key.utf8)
    withUnsafeBytes(of: UInt32(keyBytes.count).littleEndian) { file += $0 }
    file += keyBytes
    withUnsafeBytes(of: UInt64(payload.count).littleEndian) { file += $0 }
    withUnsafeBytes(of: payload.withUnsafeBytes { Self.hash($0) }.littleEndian) { file += $0 }
    file += payload
    try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let path = directory + "/" + key.file
    let temporary = "\(path).\(getpid()).\(UInt64.random(in: 0 ... .max)).tmp"
    guard FileManager.default.createFile(atPath: temporary, contents: Data(file)) else { return }
    if rename(temporary, path) != 0 { unlink(temporary) }
  }

  /// Size and modification time of a file.
  private static func stamp(_ path: String) -> String? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return "\(info.st_size) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
  }

  /// The libhyphen library this process runs (its file and stamp): a new libhyphen may lay its
  /// automaton out differently.
  static let library: String = {
    guard let name = receipt_hyphen_library() else { return "unknown" }
    let path = String(cString: name)
    return "\(path) \(stamp(path) ?? "")"
  }()

  /// A 64-bit hash of bytes (FNV-1a over 8-byte words, then the tail): catches a damaged or
  /// truncated file, at memory speed.
  static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    let words = bytes.count / 8
    for i in 0..<words {
      h = (h ^ bytes.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self)) &* 0x100_0000_01b3
    }
    for i in (words * 8)..<bytes.count { h = (h ^ UInt64(bytes[i])) &* 0x100_0000_01b3 }
    return h
  }

  static func hash(_ bytes: [UInt8]) -> UInt64 { bytes.withUnsafeBytes { hash($0) } }
}
