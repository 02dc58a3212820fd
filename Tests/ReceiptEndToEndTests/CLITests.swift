import Foundation
import ReceiptPrint
import ReceiptRender
import ReceiptTestSupport
import Testing

/// The `receipt` binary as a user runs it.
@Suite struct CLITests {
  /// The shipped binary (release, static Swift runtime).
  var receipt: String { (try? Tool.shippedBinary()) ?? "receipt-release-binary-missing" }

  @Test func theBinaryUnderTestIsTheShippedOne() throws {
    let binary = try Tool.shippedBinary()
    #expect(binary.hasSuffix("release/receipt") || ProcessInfo.processInfo.environment["RECEIPT_BINARY"] != nil)
    let libraries = try Tool.run("ldd", [binary]).stdout
    #expect(!libraries.contains("libswiftCore") && !libraries.contains("libFoundation"), "static stdlib: \(libraries)")
    // The one-shot commands' binary links neither libcups (opened when printing needs it) nor
    // the daemon's SQLite; the daemon beside it is shipped the same way.
    #expect(!libraries.contains("libcups") && !libraries.contains("libsqlite3"), "\(libraries)")
    let daemon = URL(fileURLWithPath: binary).deletingLastPathComponent().appendingPathComponent("receipt-daemon").path
    let daemonLibraries = try Tool.run("ldd", [daemon]).stdout
    #expect(daemonLibraries.contains("libsqlite3") && !daemonLibraries.contains("libswiftCore"), "\(daemonLibraries)")
  }

  /// `receipt serve` runs `receipt-daemon` from beside it; without it, one line says what to
  /// install, with exit 69 (unavailable), before anything starts.
  @Test func serveWithoutTheDaemonBinarySaysWhatToInstall() throws {
    let directory = try Tool.temporaryDirectory()
    let lonely = directory.appendingPathComponent("receipt")
    try FileManager.default.copyItem(atPath: try Tool.shippedBinary(), toPath: lonely.path)
    let result = try Tool.run(lonely.path, ["serve", "--printer", "a=dir:\(directory.path)", "--port", "0"])
    #expect(result.status == 69, "\(result.stderr)")
    #expect(result.stderr.contains("receipt-daemon, which is not installed beside receipt"), "\(result.stderr)")
    #expect(!result.stdout.contains("http://"), "nothing listened: \(result.stdout)")
  }

  /// The commands the README documents (its `### receipt NAME` headings, and `serve`) are
  /// exactly those `receipt --help` lists, and each answers `--help` with its usage and exit 0.
  @Test func helpListsTheREADMEsCommandsAndEachHasHelp() throws {
    let readme = Tool.manual
    let documented = Set(
      readme.split(separator: "\n").filter { $0.hasPrefix("## `receipt ") }.map {
        String($0.dropFirst("## `receipt ".count).prefix { $0.isLetter })
      } + ["serve"])
    #expect(documented.count >= 8, "\(documented)")
    let result = try Tool.run(receipt, ["--help"])
    #expect(result.status == 0)
    let listed = Set(
      result.stdout.components(separatedBy: "SUBCOMMANDS:").last!.split(separator: "\n").compactMap { line in
        line.hasPrefix("  ") && !line.hasPrefix("   ") ? line.split(separator: " ").first.map(String.init) : nil
      }.filter { $0 != "See" })
    #expect(listed == documented, "listed by --help: \(listed.sorted()); in the README: \(documented.sorted())")
    for command in documented.sorted() {
      let help = try Tool.run(receipt, [command, "--help"])
      #expect(help.status == 0, "\(command) --help: exit \(help.status)")
      #expect(
        help.stdout.hasPrefix("OVERVIEW: ") && help.stdout.contains("USAGE: receipt \(command)"), "\(help.stdout)")
    }
  }

  /// Help reads well at 80 columns: no line of any command's help is wider (ArgumentParser then
  /// wraps it again, leaving "scaled,\ncropped" fragments), but for the usage line it writes.
  @Test func helpFitsEightyColumns() throws {
    for command in ["", "print", "render", "measure", "printers", "validate", "serve", "design", "versions"] {
      let result = try Tool.run(
        receipt, (command.isEmpty ? [] : [command]) + ["--help"], environment: ["COLUMNS": "80"])
      #expect(result.status == 0)
      for line in result.stdout.split(separator: "\n") where !line.hasPrefix("USAGE:") {
        #expect(line.count <= 80, "receipt \(command) --help: \(line.count) columns: \(line)")
      }
    }
  }

  @Test func serveRefusesABadSetupWithOneLineAndExit65() throws {
    let directory = try Tool.temporaryDirectory()
    let config = directory.appendingPathComponent("serve.json")
    try #"{"printers": {"counter": "cups:Roll80"}, "prot": 8631}"#.write(to: config, atomically: true, encoding: .utf8)
    let typo = try Tool.run(receipt, ["serve", "--config", config.path])
    #expect(typo.status == 65 && typo.stderr.contains("unknown setting 'prot'"), "\(typo.stderr)")
    let open = try Tool.run(receipt, ["serve", "--host", "0.0.0.0", "--printer", "a=dir:\(directory.path)"])
    #expect(open.status == 65 && open.stderr.contains("needs a bearer token"), "\(open.stderr)")
    let target = try Tool.run(receipt, ["serve", "--printer", "a=lpt1"])
    #expect(target.status == 65 && target.stderr.contains("NAME=cups:QUEUE"), "\(target.stderr)")
  }

  /// A one-shot render pays only for what it uses: libcups (and the thirty libraries it brings)
  /// is opened only by the formats and commands that need it.
  @Test func aRenderToPDFDoesNotLoadLibcupsButAPWGRenderDoes() throws {
    let dir = try Tool.temporaryDirectory()
    let input = dir.appendingPathComponent("note.txt")
    try "Corner Café\n2 × Espresso 5.00\n".write(to: input, atomically: true, encoding: .utf8)
    let pdf = try Tool.run(
      receipt, ["render", input.path, "-o", dir.appendingPathComponent("r.pdf").path],
      environment: ["LD_DEBUG": "files"])
    #expect(pdf.status == 0, "\(pdf.stderr)")
    #expect(pdf.stderr.contains("file=libcairo.so.2"), "LD_DEBUG shows the libraries loaded")
    for library in ["libcups.so", "libgnutls", "libkrb5", "libavahi", "libsqlite3"] {
      #expect(!pdf.stderr.contains("file=\(library)"), "a PDF render loaded \(library)")
    }
    let pwg = try Tool.run(
      receipt, ["render", input.path, "-o", dir.appendingPathComponent("r.pwg").path],
      environment: ["LD_DEBUG": "files"])
    #expect(pwg.status == 0, "\(pwg.stderr)")
    #expect(pwg.stderr.contains("file=libcups.so.2 [0];  dynamically loaded by"), "the PWG writer opens libcups")
  }

  @Test func renderWritesAPdfAndSaysWhere() throws {
    let dir = try Tool.temporaryDirectory()
    let input = dir.appendingPathComponent("note.txt")
    try "Hello, receipt.\nSecond line\n".write(to: input, atomically: true, encoding: .utf8)
    let output = dir.appendingPathComponent("note.pdf")
    let result = try Tool.run(receipt, ["render", input.path, "-o", output.path])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains(output.path))
    let sizes = try Tool.pdfPageSizes(output)
    try #require(sizes.count == 1)
    #expect(abs(sizes[0].height - ((2 * 11.640625).rounded(.up) + 18)) < 0.01)
    #expect(try Tool.run("pdftotext", [output.path, "-"]).stdout.contains("Hello, receipt."))
  }

  @Test func renderToStdout() throws {
    let dir = try Tool.temporaryDirectory()
    let input = dir.appendingPathComponent("s.txt")
    try "stdout".write(to: input, atomically: true, encoding: .utf8)
    let result = try Tool.run(receipt, ["render", input.path, "-o", "-", "--format", "pdf"])
    #expect(result.status == 0)
    let pdf = dir.appendingPathComponent("s.pdf")
    try result.output.write(to: pdf)
    #expect(try Tool.run("pdftotext", [pdf.path, "-"]).stdout.contains("stdout"))
  }

  /// Every format from the command line, each checked by an independent reader.
  @Test func rendersEveryFormat() throws {
    let dir = try Tool.temporaryDirectory()
    let input = dir.appendingPathComponent("f.txt")
    try "Formats\nTotal 10.20".write(to: input, atomically: true, encoding: .utf8)
    func render(_ name: String, _ extra: [String] = []) throws -> URL {
      let url = dir.appendingPathComponent(name)
      let result = try Tool.run(receipt, ["render", input.path, "-o", url.path] + extra)
      #expect(result.status == 0, "\(name): \(result.stderr)")
      return url
    }
    let dots = Int((((2 * 11.640625).rounded(.up) + 18) * 203 / 72).rounded(.up))
    let png = try Tool.decodePNG(try render("f.png"))
    #expect(png.bits == 1 && png.width == 639 && png.height == dots)
    let gray = try Tool.decodePNG(try render("g.png", ["--gray"]))
    #expect(gray.bits == 8 && gray.height == dots)
    for (name, extra) in [("f.pwg", [String]()), ("f.ras", []), ("g.pwg", ["--gray"])] {
      let pages = try RasterStreamReader.read(Data(contentsOf: try render(name, extra)))
      #expect(pages.count == 1 && pages[0].header.height == dots && pages[0].header.width == 639)
    }
    let escpos = try ESCPOSDecoder.decode(Data(contentsOf: try render("f.escpos")), bytesPerLine: 72)
    #expect(escpos.pages.count == 1 && escpos.pages[0].width == 576 && escpos.pages[0].height == dots)
    #expect(escpos.cuts == [.partial])
    let refused = try Tool.run(
      receipt, ["render", input.path, "-o", dir.appendingPathComponent("x.escpos").path, "--gray"])
    #expect(refused.status == 64 && refused.stderr.contains("1-bit"), "a usage error, before anything is written")
  }

  var templates: String {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Templates")
      .standardizedFileURL.path
  }

  @Test func rendersAnOrderThroughATemplate() throws {
    let dir = try Tool.temporaryDirectory()
    let out = dir.appendingPathComponent("r.pdf")
    let result = try Tool.run(
      receipt, ["render", "\(templates)/Examples/small.json", "--templates", templates, "-o", out.path, "--strict"])
    #expect(result.status == 0, "\(result.stderr)")
    let text = try Tool.run("pdftotext", [out.path, "-"]).stdout
    #expect(text.contains("Corner Café") && text.contains("$11.04") && text.contains("Thank you for your visit!"))
    // Standard input, another template and locale.
    let stdin = try Data(contentsOf: URL(fileURLWithPath: "\(templates)/Examples/small.json"))
    let kitchen = try Tool.run(
      receipt,
      [
        "render", "-", "--templates", templates, "--template", "kitchen", "--locale", "de_DE", "-o", "-", "--format",
        "pdf",
      ],
      stdin: stdin)
    #expect(kitchen.status == 0, "\(kitchen.stderr)")
    let pdf = dir.appendingPathComponent("k.pdf")
    try kitchen.output.write(to: pdf)
    #expect(try Tool.run("pdftotext", [pdf.path, "-"]).stdout.contains("BESTELLUNG 1042"))
  }

  @Test func validateReportsFileLineAndColumn() throws {
    let good = try Tool.run(receipt, ["validate", "receipt", "--templates", templates])
    #expect(good.status == 0 && good.stdout.contains("receipt: valid"))
    let dir = try Tool.temporaryDirectory()
    try "<receipt>\n  <txt>hi</txt>\n</receipt>".write(
      to: dir.appendingPathComponent("bad.xml"), atomically: true, encoding: .utf8)
    let bad = try Tool.run(receipt, ["validate", "bad", "--templates", dir.path])
    #expect(bad.status == 65)
    #expect(bad.stderr.split(separator: "\n").count == 1)
    #expect(bad.stderr.contains("bad.xml:2:") && bad.stderr.contains("did you mean '<text>'?"), "\(bad.stderr)")
  }

  @Test func badBarcodeDataNamesTheTemplateLine() throws {
    let dir = try Tool.temporaryDirectory()
    try "<receipt><text>x</text>\n  <barcode type=\"ean13\" data=\"$code\"/></receipt>".write(
      to: dir.appendingPathComponent("t.xml"), atomically: true, encoding: .utf8)
    let order = dir.appendingPathComponent("o.json")
    try #"{"code": "4006381333932"}"#.write(to: order, atomically: true, encoding: .utf8)
    let result = try Tool.run(
      receipt,
      [
        "render", order.path, "--templates", dir.path, "--template", "t", "-o",
        dir.appendingPathComponent("x.pdf").path,
      ])
    #expect(result.status == 65)
    #expect(result.stderr.contains("t.xml:2:") && result.stderr.contains("check digit"), "\(result.stderr)")
  }

  @Test func missingDataWarnsOrFailsInStrictMode() throws {
    let dir = try Tool.temporaryDirectory()
    let order = dir.appendingPathComponent("o.json")
    try #"{"number": "1"}"#.write(to: order, atomically: true, encoding: .utf8)
    let lenient = try Tool.run(receipt, ["measure", order.path, "--templates", templates])
    #expect(lenient.status == 0 && lenient.stderr.contains("warning:"))
    let strict = try Tool.run(receipt, ["measure", order.path, "--templates", templates, "--strict"])
    #expect(strict.status == 65 && strict.stderr.contains(".xml:"))
  }

  @Test func measurePrintsJson() throws {
    let dir = try Tool.temporaryDirectory()
    let input = dir.appendingPathComponent("m.txt")
    try "A\nB\nC".write(to: input, atomically: true, encoding: .utf8)
    let result = try Tool.run(receipt, ["measure", input.path, "--json"])
    #expect(result.status == 0)
    let pages = try JSONSerialization.jsonObject(with: result.output) as! [[String: Any]]
    try #require(pages.count == 1)
    #expect(pages[0]["cutLength"] as? Double == (3 * 11.640625).rounded(.up) + 18)
  }

  @Test func missingInputIsOneLineAndExit66() throws {
    let result = try Tool.run(receipt, ["render", "/nonexistent/order.txt", "-o", "/tmp/x.pdf"])
    #expect(result.status == 66)
    #expect(result.stderr.split(separator: "\n").count == 1)
    #expect(result.stderr.contains("/nonexistent/order.txt"))
  }

  @Test func unreadableFontIsOneLineAndExit70() throws {
    let dir = try Tool.temporaryDirectory()
    let input = dir.appendingPathComponent("f.txt")
    try "text".write(to: input, atomically: true, encoding: .utf8)
    let badFont = dir.appendingPathComponent("broken.ttf")
    try Data("not a font".utf8).write(to: badFont)
    let result = try Tool.run(
      receipt, ["render", input.path, "-o", dir.appendingPathComponent("f.pdf").path, "--font", "\(badFont.path) 10"])
    #expect(result.status == 70)
    #expect(result.stderr.split(separator: "\n").count == 1)
    #expect(result.stderr.contains("broken.ttf"))
  }

  @Test func unknownPaperIsAUsageError() throws {
    let result = try Tool.run(receipt, ["measure", "x.txt", "--paper", "A4"])
    #expect(result.status == 64)
    #expect(result.stderr.contains("paper"))
  }
}
