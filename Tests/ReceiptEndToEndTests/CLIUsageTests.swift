import Foundation
import ReceiptTestSupport
import Testing

/// What a new user types first works, and what contradicts itself is a one-line usage error
/// (64) before anything is written.
@Suite struct CLIUsageTests {
  var receipt: String { (try? Tool.shippedBinary()) ?? "receipt-release-binary-missing" }
  var templates: URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Templates")
      .standardizedFileURL
  }
  var order: String { templates.appendingPathComponent("Examples/small.json").path }

  /// A copy of the shipped templates in a fresh directory, and the directory to run in (no
  /// ./Templates there: the path must do the work).
  func workspace() throws -> (tpl: URL, cwd: URL) {
    let cwd = try Tool.temporaryDirectory()
    let tpl = cwd.appendingPathComponent("tpl")
    try FileManager.default.copyItem(at: templates, to: tpl)
    try FileManager.default.moveItem(
      at: tpl.appendingPathComponent("receipt.xml"), to: tpl.appendingPathComponent("shop.xml"))
    return (tpl, cwd)
  }

  @Test func aTemplateCanBeGivenAsAPath() throws {
    let (tpl, cwd) = try workspace()
    let output = cwd.appendingPathComponent("r.pdf").path
    for template in ["tpl/shop.xml", "tpl/shop", tpl.appendingPathComponent("shop.xml").path] {
      let rendered = try Tool.run(
        "/bin/sh", ["-c", "cd '\(cwd.path)' && '\(receipt)' render '\(order)' --template '\(template)' -o '\(output)'"])
      #expect(rendered.status == 0, "\(template): \(rendered.stderr)")
      let validated = try Tool.run("/bin/sh", ["-c", "cd '\(cwd.path)' && '\(receipt)' validate '\(template)'"])
      #expect(
        validated.status == 0 && validated.stdout.contains("\(template): valid"), "\(template): \(validated.stderr)")
    }
    #expect(try Tool.run("pdftotext", [output, "-"]).stdout.contains("Total"))
    let missing = try Tool.run("/bin/sh", ["-c", "cd '\(cwd.path)' && '\(receipt)' validate tpl/nope.xml"])
    #expect(missing.status == 66 && missing.stderr.contains("no template file"), "\(missing.stderr)")
  }

  @Test func standardOutputIsPDFUnlessFormatSays() throws {
    let result = try Tool.run(receipt, ["render", order, "--templates", templates.path, "-o", "-"])
    #expect(result.status == 0, "\(result.stderr)")
    let file = try Tool.temporaryDirectory().appendingPathComponent("stdout.pdf")
    try result.output.write(to: file)
    // poppler reads the bytes as a PDF with the order in it.
    #expect(try Tool.run("pdfinfo", [file.path]).stdout.contains("Pages:           1"))
    #expect(try Tool.run("pdftotext", [file.path, "-"]).stdout.contains("Total"))
    // --format still wins on standard output.
    let escpos = try Tool.run(
      receipt, ["render", order, "--templates", templates.path, "-o", "-", "--format", "escpos"])
    #expect(escpos.status == 0 && escpos.output.starts(with: [0x1B, 0x40]), "ESC @ first")
  }

  @Test func contradictionsAreUsageErrorsBeforeAnythingIsWritten() throws {
    let dir = try Tool.temporaryDirectory()
    let cases: [([String], String)] = [
      (["-o", dir.appendingPathComponent("a.png").path, "--format", "escpos"], "contradicts"),
      (["-o", dir.appendingPathComponent("b.pdf").path, "--gray"], "--gray"),
      (["-o", dir.appendingPathComponent("c.bin").path, "--gray"], "1-bit"),
      (["-o", dir.appendingPathComponent("d.pdf").path, "--locale", "klingon"], "unknown --locale"),
    ]
    for (arguments, expected) in cases {
      let result = try Tool.run(receipt, ["render", order, "--templates", templates.path] + arguments)
      #expect(result.status == 64, "\(arguments): \(result.stderr)")
      #expect(result.stderr.hasPrefix("receipt: error: ") && result.stderr.contains(expected), "\(result.stderr)")
      #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result.stderr)")
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty, "nothing written")
    // Known locales in either spelling are taken.
    for locale in ["de_DE", "ja-JP", "ar"] {
      let result = try Tool.run(
        receipt,
        [
          "render", order, "--templates", templates.path, "--locale", locale, "-o",
          dir.appendingPathComponent("l.pdf").path,
        ])
      #expect(result.status == 0, "\(locale): \(result.stderr)")
    }
  }
}
