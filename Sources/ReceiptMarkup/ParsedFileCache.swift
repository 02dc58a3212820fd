import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Template and strings files parsed once per process and reused while the file is unchanged:
/// a batch of thousands of orders, or the daemon, parses `receipt.xml`, its includes and
/// `Strings/*.json` once instead of once per receipt.
///
/// A parse is reused only while the file's device, inode, size, modification and change times
/// (to the nanosecond) are as they were when it was parsed — a template saved by the designer (written
/// to a temporary file and renamed) is a new inode, so the next receipt parses it afresh.
/// Failed parses are not kept: a broken template reports its error every time. At most 256
/// files are kept; beyond that the cache starts over.
final class ParsedFileCache: @unchecked Sendable {
  // @unchecked: every field is behind `lock`; parsed documents are not changed after parsing.
  static let limit = 256

  private let lock = NSLock()
  private var documents: [String: (stamp: Stamp, value: MarkupDocument)] = [:]
  private var tables: [String: (stamp: Stamp, value: [String: String]?)] = [:]
  private var sheets: [String: (stamp: Stamp, value: JSONValue)] = [:]
  private var merged: [String: (stamps: [Stamp?], names: [String], own: [String], value: MergedStrings)] = [:]

  /// Templates kept parsed (tests).
  var documentCount: Int { lock.withLock { documents.count } }

  /// What identifies a file's version.
  struct Stamp: Equatable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var seconds: Int
    var nanoseconds: Int
    /// The inode's change time: set by the kernel on every write, and not settable — an edit in
    /// place whose modification time was put back (`cp -p`, `rsync --inplace -t`, `touch -r`)
    /// still changes it.
    var changeSeconds: Int
    var changeNanoseconds: Int

    init?(_ path: String) {
      var info = stat()
      guard stat(path, &info) == 0 else { return nil }
      device = UInt64(info.st_dev)
      inode = UInt64(info.st_ino)
      size = Int64(info.st_size)
      seconds = info.st_mtim.tv_sec
      nanoseconds = info.st_mtim.tv_nsec
      changeSeconds = info.st_ctim.tv_sec
      changeNanoseconds = info.st_ctim.tv_nsec
    }
  }

  /// The parsed template at `path`, parsing it with `parse` when it is not kept or has changed.
  func document(at path: String, parse: () throws -> MarkupDocument) throws -> MarkupDocument {
    try kept(path, in: \.documents, parse: parse)
  }

  /// The parsed style sheet at `path` (its JSON), parsing it with `parse` when it is not kept or
  /// has changed. A sheet whose classes are malformed is still kept: merging it reports the
  /// error, every time.
  func styleSheet(at path: String, parse: () throws -> JSONValue) throws -> JSONValue {
    try kept(path, in: \.sheets, parse: parse)
  }

  /// The parsed style sheet at `path`, with the stamp of the file it was parsed from (nil when
  /// the file could not be stat'ed: then it was parsed, not kept).
  func styleSheetAndStamp(at path: String, parse: () throws -> JSONValue) throws -> (JSONValue, Stamp?) {
    try keptAndStamp(path, in: \.sheets, parse: parse)
  }

  /// The value kept in `table` for the file at `path` while its stamp is unchanged, else
  /// `parse`'s (kept unless it throws). A file that cannot be stat'ed is parsed, not kept.
  private func kept<Value>(
    _ path: String, in table: ReferenceWritableKeyPath<ParsedFileCache, [String: (stamp: Stamp, value: Value)]>,
    parse: () throws -> Value
  ) rethrows -> Value {
    try keptAndStamp(path, in: table, parse: parse).0
  }

  /// ``kept(_:in:parse:)`` with the stamp the value goes with.
  private func keptAndStamp<Value>(
    _ path: String, in table: ReferenceWritableKeyPath<ParsedFileCache, [String: (stamp: Stamp, value: Value)]>,
    parse: () throws -> Value
  ) rethrows -> (Value, Stamp?) {
    guard let stamp = Stamp(path) else { return (try parse(), nil) }
    if let kept = lock.withLock({ self[keyPath: table][path] }), kept.stamp == stamp { return (kept.value, stamp) }
    let value = try parse()
    lock.withLock {
      if self[keyPath: table].count >= Self.limit { self[keyPath: table] = [:] }
      self[keyPath: table][path] = (stamp, value)
    }
    return (value, stamp)
  }

  /// A locale's strings: the tables of its chain of files merged, and the files of its own
  /// locale that are missing (``LocalizedStrings``).
  struct MergedStrings {
    var table: [String: String]
    var missingFiles: [String]
  }

  /// The merged strings of a locale's chain of `Strings/NAME.json` files in `directory`
  /// (`chain`: the names, least specific first, and the locale's own names), kept under `key`
  /// while every file of the chain — present or missing — is as it was: a receipt merges its
  /// tables once per batch, not once per receipt.
  func mergedStrings(in directory: String, key: String, chain: () -> (names: [String], own: [String]))
    -> MergedStrings
  {
    func path(_ name: String) -> String { directory + "/Strings/" + name + ".json" }
    let kept = lock.withLock { merged[key] }
    if let kept, kept.stamps == kept.names.map({ Stamp(path($0)) }) { return kept.value }
    let (names, own) = kept.map { ($0.names, $0.own) } ?? chain()
    let stamps = names.map { Stamp(path($0)) }
    var value = MergedStrings(table: [:], missingFiles: [])
    var found: [String] = []
    for name in names {
      guard let object = strings(at: path(name)) else { continue }
      value.table.merge(object) { _, specific in specific }
      found.append(name)
    }
    if !own.contains(where: found.contains) { value.missingFiles = own.map { "Strings/\($0).json" } }
    lock.withLock {
      if merged.count >= Self.limit { merged = [:] }
      merged[key] = (stamps, names, own, value)
    }
    return value
  }

  /// A strings file (`Strings/de.json`): its table, nil when it is missing or not a JSON object
  /// of strings.
  func strings(at path: String) -> [String: String]? {
    kept(path, in: \.tables) {
      (try? Data(contentsOf: URL(fileURLWithPath: path, isDirectory: false))).flatMap {
        try? JSONSerialization.jsonObject(with: $0) as? [String: String]
      }
    }
  }
}
