import Foundation
import ReceiptKit
import ReceiptTestSupport
import Testing

/// The configuration file's manual page (`serve.json(5)`, debian/serve.json.5) describes every
/// key the daemon reads, and the daemon reads every key it describes: neither can drift.
@Suite struct ConfigurationManualTests {
  @Test func serveJSONFiveNamesEveryKey() throws {
    let page = try String(
      contentsOf: Tool.packageRoot.appendingPathComponent("debian/serve.json.5"), encoding: .utf8)
    // Keys are written as `.It Ic key` (or `, Ic key` after another on the same item).
    let described = Set(
      page.split(separator: "\n").filter { $0.hasPrefix(".It Ic ") }.flatMap { line in
        line.dropFirst(4).components(separatedBy: ",").map {
          $0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "Ic ", with: "")
        }
      })
    #expect(
      ReceiptSettings.keys.subtracting(described).isEmpty,
      "not in serve.json(5): \(ReceiptSettings.keys.subtracting(described).sorted())")
    #expect(
      described.subtracting(ReceiptSettings.keys).isEmpty,
      "not read by the daemon: \(described.subtracting(ReceiptSettings.keys).sorted())")
  }
}
