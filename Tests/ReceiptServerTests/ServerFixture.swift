import Foundation
import ReceiptKit
import ReceiptTestSupport

@testable import ReceiptServer

/// A daemon on a fresh SQLite file with a directory printer (and optionally more printers).
struct ServerFixture {
  let directory: URL
  let archive: URL
  let server: ReceiptServer

  static var templates: URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Templates")
      .standardizedFileURL
  }

  init(
    extraPrinters: [PrinterConfig] = [], maxAttempts: Int = 8, database: URL? = nil,
    configure: (inout ReceiptServer.Configuration) -> Void = { _ in }
  ) throws {
    directory = try Tool.temporaryDirectory()
    archive = directory.appendingPathComponent("archive")
    try FileManager.default.createDirectory(at: archive, withIntermediateDirectories: true)
    var configuration = ReceiptServer.Configuration(
      port: 0, database: (database ?? directory.appendingPathComponent("queue.sqlite")).path, templates: Self.templates,
      printers: [PrinterConfig(name: "archive", target: .directory(archive))] + extraPrinters, maxAttempts: maxAttempts)
    configure(&configuration)
    server = try ReceiptServer(configuration: configuration)
  }

  /// The small example order.
  static var order: String {
    try! String(contentsOf: templates.appendingPathComponent("Examples/small.json"), encoding: .utf8)
  }

  static func body(template: String = "receipt", printer: String? = nil, data: String = order) -> String {
    "{\"template\": \"\(template)\"" + (printer.map { ", \"printer\": \"\($0)\"" } ?? "") + ", \"data\": \(data)}"
  }

  /// Files the directory printer wrote, in name (= print) order.
  var printed: [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: archive.path)) ?? []).filter { $0.hasSuffix(".pdf") }
      .sorted()
  }

  /// Waits (at most `seconds`) until `condition` holds.
  func wait(seconds: Double = 30, until condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
      if try condition() { return true }
      Thread.sleep(forTimeInterval: 0.05)
    }
    return try condition()
  }
}
