import Foundation

/// Runs external tools (poppler, zbar, pango-view, the `receipt` binary) for independent checks.
public enum Tool {
  /// The result of a finished process.
  public struct Result: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
    public var output: Data
  }

  /// Runs a program (looked up in PATH unless absolute) and waits for it.
  @discardableResult
  public static func run(_ program: String, _ arguments: [String], stdin: Data? = nil) throws -> Result {
    let process = Process()
    process.executableURL =
      program.hasPrefix("/") ? URL(fileURLWithPath: program) : URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = program.hasPrefix("/") ? arguments : [program] + arguments
    let out = Pipe()
    let err = Pipe()
    let input = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = input
    try process.run()
    if let stdin { input.fileHandleForWriting.write(stdin) }
    try input.fileHandleForWriting.close()
    let group = DispatchGroup()
    nonisolated(unsafe) var outData = Data()
    nonisolated(unsafe) var errData = Data()
    DispatchQueue.global().async(group: group) { outData = out.fileHandleForReading.readDataToEndOfFile() }
    DispatchQueue.global().async(group: group) { errData = err.fileHandleForReading.readDataToEndOfFile() }
    process.waitUntilExit()
    group.wait()
    return Result(
      status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
      stderr: String(decoding: errData, as: UTF8.self), output: outData)
  }

  /// A fresh temporary directory.
  public static func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("receipt-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }

  /// `pdfinfo`'s page sizes in points (all pages).
  public static func pdfPageSizes(_ pdf: URL) throws -> [(width: Double, height: Double)] {
    let info = try run("pdfinfo", ["-f", "1", "-l", "999", pdf.path])
    return info.stdout.split(separator: "\n").compactMap { line in
      guard line.hasPrefix("Page") && line.contains("size:") else { return nil }
      let parts = line.split(separator: " ").compactMap { Double($0) }
      let numbers = parts.count >= 3 ? Array(parts.suffix(from: parts.count - 2)) : parts
      return numbers.count == 2 ? (numbers[0], numbers[1]) : nil
    }
  }

  /// The directory holding the built products (the test bundle sits there).
  public static var productsDirectory: URL {
    let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    return bundle
  }
}
