import Foundation
import ReceiptTestSupport
import Testing

/// The README's "Commands" section, promise by promise, on the shipped binary: a usage error's
/// exit code, `measure`'s text, `validate --data`, `versions` against the installed packages,
/// the environment variables of the one-shot commands, a model file by path.
@Suite struct CLIManualTests {
  var receipt: String { (try? Tool.shippedBinary()) ?? "receipt-release-binary-missing" }

  @Test func anUnknownOptionIsExit64NamingIt() throws {
    let note = try ExpectedLength.note(lines: 1)
    let out = note.deletingLastPathComponent().appendingPathComponent("x.pdf")
    let result = try Tool.run(receipt, ["render", note.path, "-o", out.path, "--bogus"])
    #expect(result.status == 64 && result.stderr.contains("--bogus"), "\(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: out.path), "nothing written")
  }

  /// `measure`'s line for people: the content height and the cut length in pt, mm and dots,
  /// equal to what the font's own tables give for the text.
  @Test func measureSaysTheLengthInPointsMillimetresAndDots() throws {
    let note = try ExpectedLength.note(lines: 4)
    let expected = try ExpectedLength.plainText(lines: 4)
    let result = try Tool.run(receipt, ["measure", note.path])
    #expect(result.status == 0, "\(result.stderr)")
    let line = try #require(
      result.stdout.firstMatch(
        of: /page 1: content ([0-9.]+) pt, cut length ([0-9.]+) pt = ([0-9.]+) mm = ([0-9]+) dots at 203 dpi\n/),
      "\(result.stdout)")
    let content = try #require(Double(line.output.1))
    let cut = try #require(Double(line.output.2))
    #expect(abs(content - 4 * 11.640625) < 0.001 && abs(cut - expected.points) < 0.001, "\(result.stdout)")
    #expect(abs(try #require(Double(line.output.3)) - cut * 25.4 / 72) < 0.006)
    #expect(try #require(Int(line.output.4)) == Int(expected.dots.rounded(.up)))
  }

  @Test func validateWithDataBindsTheOrder() throws {
    let dir = try Tool.temporaryDirectory()
    let template = dir.appendingPathComponent("t.xml")
    try "<receipt><text>Hello $customer.name</text></receipt>".write(to: template, atomically: true, encoding: .utf8)
    let good = dir.appendingPathComponent("good.json")
    try #"{"customer": {"name": "Ada"}}"#.write(to: good, atomically: true, encoding: .utf8)
    let bad = dir.appendingPathComponent("bad.json")
    try #"{"customer": {}}"#.write(to: bad, atomically: true, encoding: .utf8)
    let valid = try Tool.run(receipt, ["validate", template.path, "--data", good.path, "--strict"])
    #expect(valid.status == 0 && valid.stdout == "\(template.path): valid\n", "\(valid.stdout)\(valid.stderr)")
    // Without data nothing is missing; with this order the path is, and --strict makes it an error.
    #expect(try Tool.run(receipt, ["validate", template.path, "--strict"]).status == 0)
    // validate's report is its output: the warning, then "valid".
    let warned = try Tool.run(receipt, ["validate", template.path, "--data", bad.path])
    #expect(
      warned.status == 0 && warned.stdout.contains("warning: t.xml:1:") && warned.stdout.contains("$customer.name")
        && warned.stdout.hasSuffix("\(template.path): valid\n"), "\(warned.stdout)")
    let strict = try Tool.run(receipt, ["validate", template.path, "--data", bad.path, "--strict"])
    #expect(strict.status == 65 && strict.stderr.contains("t.xml:1:"), "\(strict.stderr)")
  }

  /// `versions` reads the libraries at run time: the versions Debian's packages installed.
  @Test func versionsAreTheInstalledLibraries() throws {
    let result = try Tool.run(receipt, ["versions"])
    #expect(result.status == 0)
    // The shipped binary's own deflateInit_ is the one cairo calls (CDeflateLevel's self-check).
    #expect(result.stdout.contains("pdf-streams zlib FLEVEL 0 (fastest)"), "\(result.stdout)")
    let reported = Dictionary(
      uniqueKeysWithValues: result.stdout.split(separator: "\n").map { line in
        let parts = line.split(separator: " ")
        return (String(parts[0]), String(parts[1]))
      })
    let packages = [
      "freetype": "libfreetype6", "harfbuzz": "libharfbuzz0b", "icu": "libicu72", "fontconfig": "libfontconfig1",
      "cairo": "libcairo2", "zint": "libzint2.11", "cups": "libcups2",
    ]
    for (library, package) in packages {
      let installed = try Tool.run("dpkg-query", ["-W", "-f", "${Version}", package]).stdout
      let upstream = String(installed.prefix { $0 != "+" && $0 != "-" })
      #expect(
        reported[library] == upstream,
        "\(library): receipt says \(reported[library] ?? "nothing"), \(package) is \(installed)")
    }
  }

  /// `RECEIPT_TEMPLATES` and `RECEIPT_MODELS` name directories for the one-shot commands; a model
  /// can also be a file given by path.
  @Test func templatesAndModelsFromTheEnvironmentOrAPath() throws {
    let dir = try Tool.temporaryDirectory()
    let templates = dir.appendingPathComponent("templates")
    let models = dir.appendingPathComponent("models")
    for d in [templates, models] { try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true) }
    try "<receipt><text>from RECEIPT_TEMPLATES</text></receipt>".write(
      to: templates.appendingPathComponent("solo.xml"), atomically: true, encoding: .utf8)
    // A made-up 180-dpi printer for 58 mm paper: its previews are 58 mm at 180 dpi, 411 dots.
    let model = """
      {"name": "till-360", "title": "A test printer", "dpi": 180, "paper": {"58mm": 360}, "commandSet": "escpos",
       "imageCommand": "gs-v-0", "bandHeight": 256, "drawerPins": [2], "setsMotionUnits": true,
       "sources": ["a test"], "cutter": "partial", "status": ["realtime"]}
      """
    try model.write(to: models.appendingPathComponent("till-360.json"), atomically: true, encoding: .utf8)
    let order = dir.appendingPathComponent("order.json")
    try "{}".write(to: order, atomically: true, encoding: .utf8)
    let pdf = dir.appendingPathComponent("r.pdf")
    let rendered = try Tool.run(
      receipt, ["render", order.path, "--template", "solo", "-o", pdf.path],
      environment: ["RECEIPT_TEMPLATES": templates.path])
    #expect(rendered.status == 0, "\(rendered.stderr)")
    #expect(try Tool.run("pdftotext", [pdf.path, "-"]).stdout.contains("from RECEIPT_TEMPLATES"))
    let note = try ExpectedLength.note(lines: 2)
    for (arguments, environment) in [
      (["--model", "till-360"], ["RECEIPT_MODELS": models.path]),
      (["--model", models.appendingPathComponent("till-360.json").path], [:]),
    ] {
      let png = dir.appendingPathComponent("m.png")
      let result = try Tool.run(
        receipt, ["render", note.path, "-o", png.path, "--paper", "58mm"] + arguments, environment: environment)
      #expect(result.status == 0, "\(arguments): \(result.stderr)")
      #expect(try Tool.decodePNG(png).width == Int((58 / 25.4 * 180).rounded()), "at the model's 180 dpi: \(arguments)")
    }
    let unknown = try Tool.run(
      receipt, ["render", note.path, "-o", dir.appendingPathComponent("u.png").path, "--model", "till-360"])
    #expect(unknown.status != 0 && unknown.stderr.contains("till-360"), "without RECEIPT_MODELS it is unknown")
  }

  /// `RECEIPT_HYPHEN_DIR` adds a language's dictionary: here Debian's German patterns under a
  /// language Debian ships none for (Hungarian), so words hyphenate only with the directory.
  @Test func aHyphenationDirectoryAddsALanguage() throws {
    let dir = try Tool.temporaryDirectory().appendingPathComponent("hyphen")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    try FileManager.default.copyItem(
      atPath: "/usr/share/hyphen/hyph_de_DE.dic", toPath: dir.appendingPathComponent("hyph_hu.dic").path)
    let word = "Donaudampfschifffahrtsgesellschaftskapitän"
    let template = #"""
      <receipt paper="58mm"><text hyphens="auto" language="hu" font="DejaVu Sans 16">\#(word)</text></receipt>
      """#
    func lines(_ environment: [String: String]) throws -> [String] {
      let work = try Tool.temporaryDirectory()
      let xml = work.appendingPathComponent("t.xml")
      try template.write(to: xml, atomically: true, encoding: .utf8)
      try "{}".write(to: work.appendingPathComponent("o.json"), atomically: true, encoding: .utf8)
      let pdf = work.appendingPathComponent("r.pdf")
      let result = try Tool.run(
        receipt, ["render", work.appendingPathComponent("o.json").path, "--template", xml.path, "-o", pdf.path],
        environment: environment)
      #expect(result.status == 0, "\(result.stderr)")
      return try Tool.run("pdftotext", ["-layout", pdf.path, "-"]).stdout.split(separator: "\n")
        .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && $0 != "\u{0C}" }
    }
    let without = try lines([:])
    #expect(without.allSatisfy { !$0.hasSuffix("-") }, "no Hungarian dictionary: split without hyphens: \(without)")
    let with = try lines(["RECEIPT_HYPHEN_DIR": dir.path])
    #expect(with.count >= 2 && with.dropLast().allSatisfy { $0.hasSuffix("-") }, "\(with)")
  }
}
