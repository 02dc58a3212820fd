import Foundation
import ReceiptTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The web app in a real browser: `receipt design` (the shipped binary) on a copy of the
/// templates, driven in headless Chromium by Selenium (`Tests/Browser/designer_test.py`): the
/// preview follows the editor and is as long as the API's cut length, a syntax error is marked on
/// its line and unmarked when fixed, a saved template prints, the queue updates live, and a failed
/// job retried from the page prints.
@Suite(.serialized) struct BrowserTests {
  static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../..").standardizedFileURL

  /// Starts `receipt design` and returns it with the address it printed.
  static func design(templates: URL, work: URL, log: URL) throws -> (ChildProcess, String) {
    let process = try ChildProcess(
      try Tool.shippedBinary(), ["design", templates.path, "--port", "0", "--work", work.path], stdout: .write(log),
      stderr: .standardOutput)
    let deadline = Date().addingTimeInterval(30)
    while Date() < deadline, process.isRunning {
      let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
      if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("receipt design: http://") }) {
        return (process, String(line.dropFirst("receipt design: ".count)))
      }
      Thread.sleep(forTimeInterval: 0.05)
    }
    process.send(SIGTERM)
    process.wait()
    throw RigError("receipt design did not start: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
  }

  @Test func theDesignerAndTheQueueWorkInChromium() throws {
    let directory = try Tool.temporaryDirectory()
    let templates = directory.appendingPathComponent("Templates")
    try FileManager.default.copyItem(at: Self.repository.appendingPathComponent("Templates"), to: templates)
    let work = directory.appendingPathComponent("work")
    let (daemon, url) = try Self.design(
      templates: templates, work: work, log: directory.appendingPathComponent("design.log"))
    defer {
      daemon.send(SIGTERM)
      daemon.wait()
    }
    #expect(url.contains("/#token=") && url.hasPrefix("http://127.0.0.1:"))
    var arguments = [
      Self.repository.appendingPathComponent("Tests/Browser/designer_test.py").path, url, templates.path,
      work.appendingPathComponent("printed").path,
    ]
    if let shots = ProcessInfo.processInfo.environment["RECEIPT_SCREENSHOTS"] { arguments += ["--screenshots", shots] }
    // Debian's Python, which has Debian's Selenium (a pyenv python3 on PATH may not).
    let result = try Tool.run("/usr/bin/python3", arguments)
    #expect(
      result.status == 0,
      "the browser test failed:\n\(result.stdout)\n\(result.stderr)\ndaemon log:\n\((try? String(contentsOf: directory.appendingPathComponent("design.log"), encoding: .utf8)) ?? "")"
    )
    #expect(result.stdout.contains("PASS"))
    // The page saved exactly one new template; the fixed voucher kept its broken first version.
    let history = try FileManager.default.contentsOfDirectory(
      atPath: templates.appendingPathComponent(".history").path)
    #expect(history.contains { $0.hasPrefix("voucher-") }, "\(history)")
  }
}
