import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Template and strings files parsed once per process and reused while the file is unchanged:
/// a batch of thousands of orders, or the daemon, parses `receipt.xml`, its includes and
/// `Strings/*.json` once instead of once per receipt.
///
/// A parse is reused only while the file's device, inode, size and modification time (to the
/// nanosecond) are as they were when it was parsed — a template saved by the designer (written
/// to a temporary file and renamed) is a new inode, so the next receipt parses it afresh.
/// Failed parses are not kept: a broken template reports its error every time. At most 256
/// files are kept; beyond that the cache starts over.
final class ParsedFileCache: @unchecked Sendable {
  // @unchecked: every field is behind `lock`; parsed documents are not changed after parsing.
  static let shared = ParsedFileCache()
  static let limit = 256

  private let lock = NSLock()
  private var documents: [String: (stamp: Stamp, document: MarkupDocument)] = [:]
  private var tables: [String: (stamp: Stamp, table: [String: String]?)] = [:]
  private var sheets: [String: (stamp: Stamp, sheet: JSONValue)] = [:]

  /// What identifies a file's version.
  struct Stamp: Equatable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var seconds: Int
    var nanoseconds: Int

    init?(_ path: String) {
      var info = stat()
      guard stat(path, &info) == 0 else { return nil }
      device = UInt64(info.st_dev)
      inode = UInt64(info.st_ino)
      size = Int64(info.st_size)
      seconds = info.st_mtim.tv_sec
      nanoseconds = info.st_mtim.tv_nsec
    }
  }

  /// The parsed template at `path`, parsing it with `parse` when it is not kept or has changed.
  func document(at path: String, parse: () throws -> MarkupDocument) throws -> MarkupDocument {
    guard let stamp = Stamp(path) else { return try parse() }
    if let kept = lock.withLock({ documents[path] }), kept.stamp == stamp { return kept.document }
    let document = try parse()
    lock.withLock {
      if documents.count >= Self.limit { documents = [:] }
      documents[path] = (stamp, document)
    }
    return document
  }

  /// The parsed style sheet at `path` (its JSON), parsing it with `parse` when it is not kept or
  /// has changed. A sheet whose classes are malformed is still kept: merging it reports the
  /// error, every time.
  func styleSheet(at path: String, parse: () throws -> JSONValue) throws -> JSONValue {
    guard let stamp = Stamp(path) else { return try parse() }
    if let kept = lock.withLock({ sheets[path] }), kept.stamp == stamp { return kept.sheet }
    let sheet = try parse()
    lock.withLock {
      if sheets.count >= Self.limit { sheets = [:] }
      sheets[path] = (stamp, sheet)
    }
    return sheet
  }

  /// A strings file (`Strings/de.json`): its table, nil when it is missing or not a JSON object
  /// of strings.
  func strings(at path: String) -> [String: String]? {
    guard let stamp = Stamp(path) else { return nil }
    if let kept = lock.withLock({ tables[path] }), kept.stamp == stamp { return kept.table }
    let table = (try? Data(contentsOf: URL(fileURLWithPath: path, isDirectory: false))).flatMap {
      try? JSONSerialization.jsonObject(with: $0) as? [String: String]
    }
    lock.withLock {
      if tables.count >= Self.limit { tables = [:] }
      tables[path] = (stamp, table)
    }
    return table
  }
}
