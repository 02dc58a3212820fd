import Crypto
import Foundation
import ReceiptKit

/// The archive of printed documents: one PDF per job (`<job id>.pdf`) of exactly what was sent to
/// the printer, written durably (fsync of the file and the directory) before it is sent; its
/// SHA-256 is recorded in the job when it printed and checked whenever it is served. Files older
/// than the retention are removed.
enum ArchiveFile {
  static func name(_ jobID: String) -> String { "\(jobID).pdf" }

  /// Lower-case hex SHA-256 (swift-crypto).
  static func sha256(_ data: Data) -> String {
    SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
  }

  /// A hex digest as base64 (for `Repr-Digest`).
  static func base64(hex: String) -> String {
    var bytes: [UInt8] = []
    var index = hex.startIndex
    while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) {
      bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
      index = next
    }
    return Data(bytes).base64EncodedString()
  }

  /// Writes a job's document durably; returns its hash.
  @discardableResult
  static func write(_ pdf: Data, job: String, in directory: URL) throws -> String {
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try OutputFile.write(pdf, to: directory.appendingPathComponent(name(job)).path)
    return sha256(pdf)
  }

  /// The hash of a job's archived document, nil when there is none.
  static func hash(job: String, in directory: URL) -> String? {
    (try? Data(contentsOf: directory.appendingPathComponent(name(job)))).map(sha256)
  }

  /// Removes archived documents last written more than `days` days before `now`; returns how
  /// many.
  @discardableResult
  static func sweep(_ directory: URL, days: Int, now: Date = Date()) -> Int {
    let limit = now.addingTimeInterval(-Double(days) * 86_400)
    let files =
      (try? FileManager.default.contentsOfDirectory(
        at: directory, includingPropertiesForKeys: [.contentModificationDateKey])) ?? []
    var removed = 0
    for file in files where file.pathExtension == "pdf" {
      let written = (try? file.resourceValues(forKeys: [.contentModificationDateKey]))?.contentModificationDate
      if let written, written < limit, (try? FileManager.default.removeItem(at: file)) != nil { removed += 1 }
    }
    return removed
  }
}
