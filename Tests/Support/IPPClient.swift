import Foundation

/// CUPS' `ipptool` as the IPP client of the tests (an implementation of IPP that is not
/// receipt's), with the conformance suites CUPS ships (`ipp-everywhere.test` includes
/// `ipp-2.0.test`, which includes `ipp-1.1.test`).
public enum IPPClient {
  /// The result of one ipptool run: its exit status and its whole output (kept for the log).
  public struct Run: Sendable {
    public var status: Int32
    public var output: String

    /// The `name (syntax) = value` lines of the answers, by attribute name (verbose runs).
    public func values(_ name: String) -> [String] {
      output.split(separator: "\n").compactMap { line in
        let text = line.trimmingCharacters(in: .whitespaces)
        guard text.hasPrefix(name + " ("), let equals = text.range(of: " = ") else { return nil }
        return String(text[equals.upperBound...])
      }
    }

    /// Test names ipptool marked `[FAIL]`.
    public var failures: [String] {
      output.split(separator: "\n").filter { $0.contains("[FAIL]") }.map {
        $0.trimmingCharacters(in: .whitespaces)
      }
    }
  }

  /// Runs `ipptool -I -t` (every test, continuing past failures) with `arguments` before the URI.
  public static func run(_ uri: String, _ arguments: [String], tests: [String], directory: URL? = nil) throws -> Run {
    var command = ["-I", "-t", "-T", "60"] + arguments + [uri] + tests
    if let directory { command = ["-c", "cd \(directory.path) && exec ipptool \"$@\"", "ipptool"] + command }
    let result = try Tool.run(directory == nil ? "ipptool" : "/bin/sh", command)
    return Run(status: result.status, output: result.stdout + result.stderr)
  }

  /// One request from an ipptool test file written for it: `OPERATION`, then the operation
  /// attributes every request has, `lines` (more `ATTR`/`GROUP`/`FILE` lines), `STATUS`, and a
  /// verbose answer.
  public static func request(
    _ uri: String, operation: String, _ lines: [String] = [], status: String = "successful-ok", user: String = "tester"
  ) throws -> Run {
    let file = try Tool.temporaryDirectory().appendingPathComponent("request.test")
    try """
    {
      NAME "\(operation)"
      OPERATION \(operation)
      GROUP operation-attributes-tag
      ATTR charset attributes-charset utf-8
      ATTR naturalLanguage attributes-natural-language en
      ATTR uri printer-uri $uri
      ATTR name requesting-user-name \(user)
    \(lines.map { "  " + $0 }.joined(separator: "\n"))
      STATUS \(status)
    }
    """.write(to: file, atomically: true, encoding: .utf8)
    return try run(uri, ["-v"], tests: [file.path])
  }

  /// A Print-Job of `file` as `format`, with job attributes (`ATTR …` lines); the job id.
  public static func printJob(
    _ uri: String, file: URL, format: String, attributes: [String] = [], user: String = "tester"
  ) throws -> Int {
    let run = try request(
      uri, operation: "Print-Job",
      ["ATTR mimeMediaType document-format \(format)", "GROUP job-attributes-tag"] + attributes + [
        "FILE \(file.path)"
      ], user: user)
    guard let id = run.values("job-id").first.flatMap(Int.init) else {
      throw RigError("Print-Job of \(file.lastPathComponent) was not accepted:\n\(run.output)")
    }
    return id
  }

  /// A directory to run CUPS' conformance suites in: the suites, the sample documents their
  /// `FILE` lines name (made here: PDF by pango-view and pdftocairo, JPEG by pdftoppm), and the
  /// PWG samples of `ipp-everywhere.test` at `dpi` (Support/raster_writer.py).
  public static func conformanceSuite(dpi: Int) throws -> URL {
    let directory = try Tool.temporaryDirectory()
    for suite in ["ipp-1.1.test", "ipp-2.0.test", "ipp-everywhere.test"] {
      try FileManager.default.copyItem(
        atPath: "/usr/share/cups/ipptool/\(suite)", toPath: directory.appendingPathComponent(suite).path)
    }
    let text = directory.appendingPathComponent("text.txt")
    try "IPP Everywhere conformance\nreceipt roll printer\n".write(to: text, atomically: true, encoding: .utf8)
    let pdf = directory.appendingPathComponent("testfile.pdf")
    let steps: [(String, [String])] = [
      ("pango-view", ["--dpi=72", "--margin=9", "--width=180", "-q", "--output=\(pdf.path)", text.path]),
      (
        "pdftocairo",
        ["-pdf", "-paper", "A4", "-expand", pdf.path, directory.appendingPathComponent("document-a4.pdf").path]
      ),
      (
        "pdftocairo",
        ["-pdf", "-paper", "letter", "-expand", pdf.path, directory.appendingPathComponent("document-letter.pdf").path]
      ),
      ("pdftocairo", ["-ps", "-paper", "A4", pdf.path, directory.appendingPathComponent("document-a4.ps").path]),
      (
        "pdftocairo",
        ["-ps", "-paper", "letter", pdf.path, directory.appendingPathComponent("document-letter.ps").path]
      ),
      ("pdftoppm", ["-jpeg", "-r", "100", "-singlefile", pdf.path, directory.appendingPathComponent("color").path]),
      (
        "pdftoppm",
        ["-jpeg", "-gray", "-r", "100", "-singlefile", pdf.path, directory.appendingPathComponent("gray").path]
      ),
      ("python3", [rasterWriter, "samples", directory.path, "\(dpi)"]),
    ]
    for (tool, arguments) in steps {
      let result = try Tool.run(tool, arguments)
      guard result.status == 0 else { throw RigError("\(tool) failed: \(result.stderr)") }
    }
    return directory
  }

  /// Support/raster_writer.py: PWG and Apple raster pages written from the formats' layouts.
  public static var rasterWriter: String {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("raster_writer.py").path
  }

  /// A PWG (`black_1`, `sgray_8`, `srgb_8`) or URF (`W8`, `SRGB24`) page of `width` × `length` mm
  /// at `dpi`: black bars across its first and last rows, a 50 % gray band in the middle.
  public static func rasterPage(_ format: String, type: String, dpi: Int, width: Double, length: Double) throws -> URL {
    let file = try Tool.temporaryDirectory().appendingPathComponent("page.\(format)")
    let result = try Tool.run("python3", [rasterWriter, format, type, "\(dpi)", "\(width)", "\(length)", file.path])
    guard result.status == 0 else { throw RigError("raster_writer.py failed: \(result.stderr)") }
    return file
  }
}

extension IPPClient {
  /// POSTs raw bytes to an IPP printer (an attacker's request, not ipptool's): the HTTP status
  /// and body.
  public static func post(port: UInt16, path: String, body: Data, contentType: String = "application/ipp") throws -> (
    status: Int, body: Data
  ) {
    let result = try Tool.run(
      "curl",
      [
        "-s", "-o", "-", "-w", "\n%{http_code}", "--max-time", "60", "-H", "Content-Type: \(contentType)",
        "-H", "Expect:", "--data-binary", "@-", "http://127.0.0.1:\(port)\(path)",
      ], stdin: body)
    let output = result.output
    guard let newline = output.lastIndex(of: 0x0A),
      let status = Int(String(decoding: output[(newline + 1)...], as: UTF8.self))
    else { throw RigError("curl: \(result.stderr)") }
    return (status, Data(output[..<newline]))
  }

  /// The bytes of an IPP request written by hand (RFC 8010): version 2.0, `operation`, request
  /// id 1, the two attributes every request starts with, `printer-uri`, then `more` (raw
  /// attribute bytes), the end tag and `document`.
  public static func rawRequest(operation: UInt16, uri: String, more: Data = Data(), document: Data = Data()) -> Data {
    var data = Data([0x02, 0x00, UInt8(operation >> 8), UInt8(operation & 0xFF), 0, 0, 0, 1, 0x01])
    data += attribute(0x47, "attributes-charset", Data("utf-8".utf8))
    data += attribute(0x48, "attributes-natural-language", Data("en".utf8))
    data += attribute(0x45, "printer-uri", Data(uri.utf8))
    data += more
    data.append(0x03)
    return data + document
  }

  /// One attribute value: its tag, name and value (RFC 8010 3.1.4).
  public static func attribute(_ tag: UInt8, _ name: String, _ value: Data) -> Data {
    var data = Data([tag])
    data += UInt16(name.utf8.count).bigEndianBytes + Data(name.utf8)
    data += UInt16(value.count).bigEndianBytes + value
    return data
  }
}

extension UInt16 {
  var bigEndianBytes: Data { Data([UInt8(self >> 8), UInt8(self & 0xFF)]) }
}
