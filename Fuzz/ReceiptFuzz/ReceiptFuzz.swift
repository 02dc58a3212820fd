import Foundation
import ReceiptKit
import ReceiptServer

/// Fuzz targets for libFuzzer (`make fuzz`): untrusted input into the parts that read it.
/// `FUZZ_TARGET` picks one: `template` (template XML and order JSON through binding, layout, a
/// PDF and ESC/POS), `expression` (the expression language: `${…}` and `test`), `json` (the order parser), `image` (PNG and JPEG headers and pixels), `http` (a job
/// request body), `config` (the daemon's configuration file), `ipp` (an IPP request),
/// `document` (a raster, JPEG or PNG document of an IPP job), `pdf` (a PDF through poppler and
/// what receipt reads of its answers), `pagefile` (the pages a document reader process hands back). Built with `-DFUZZING` (and
/// `-sanitize=fuzzer`) `main` hands over to libFuzzer's driver; without it, `main` replays
/// files (a regression run).
enum Fuzz {
  static let target = ProcessInfo.processInfo.environment["FUZZ_TARGET"] ?? "json"
  static let engine = try! ReceiptEngine()
  static let templates = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../Templates").standardizedFileURL
  /// A copy of the shipped templates directory (so fuzzed templates can include, style and
  /// localize), where each input is written as `t.xml`.
  static let scratch: URL = {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("receipt-fuzz-\(getpid())")
    try? FileManager.default.removeItem(at: url)
    try? FileManager.default.copyItem(at: templates, to: url)
    return url
  }()
  static let configuration = ReceiptServer.Configuration(
    port: 0, database: scratch.appendingPathComponent("q.sqlite").path, templates: templates,
    printers: [PrinterConfig(name: "counter", target: .directory(scratch))])

  /// The printer of the `ipp` target: a TM-T88VI on 80 mm paper.
  static let ippPrinter = PrinterConfig(
    name: "till", target: .socket(host: "127.0.0.1", port: 9100), model: try? PrinterModel.named("epson-tm-t88vi"))

  /// The order the `expression` target binds: arrays, exact decimals, strings, nulls, dates.
  static let expressionOrder = Data(
    #"""
    {"items": [{"name": "Café crème", "qty": 2, "price": "3.50", "rate": 7}, {"name": "Brötchen", "qty": 1,
     "price": 0.4, "rate": null}], "total": "7.40", "paid": true, "id": 9007199254740993, "date": "2026-11-25T10:00:00Z",
     "note": null, "tags": ["a", "b"]}
    """#.utf8)

  /// One input. Errors are expected (bad input must be refused); crashes, hangs and leaks are
  /// what the fuzzer looks for.
  static func run(_ data: Data) {
    switch target {
    case "template":
      // Template XML, a NUL byte, then the order JSON.
      let parts = data.split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false)
      let template = parts.first.map { Data($0) } ?? Data()
      let order = parts.count > 1 ? Data(parts[1]) : Data("{}".utf8)
      let file = scratch.appendingPathComponent("t.xml")
      guard (try? template.write(to: file)) != nil else { return }
      guard let bound = try? engine.templateDocument(template: "t", data: order, templates: scratch) else { return }
      // Both ways a receipt is drawn: a PDF (cairo's vector surface) and printer dots (the
      // raster path: glyph bitmaps, packing to 1 bit, dithering, the ESC/POS encoder).
      _ = try? engine.render(bound.document, formats: [.pdf, .escpos])
    case "json":
      if let value = try? JSONValue.parse(data) {
        precondition(value == (try? JSONValue.parse(data)), "parsing is deterministic")
      }
    case "image":
      let document = ReceiptDocument(blocks: [.image(ImageBlock(data: data))])
      _ = try? engine.render(document, format: .png)
    case "http":
      if let request = try? JobRequest(body: data, configuration: configuration) {
        precondition(!request.data.isEmpty)
      }
      // The same body as a preview (a template's text in `source`, paper, model).
      _ = try? RenderRequest(body: data, configuration: configuration)
    case "expression":
      // The expression language alone: the input is the text of `${…}` and of a `test`,
      // XML-escaped, bound to an order with arrays, numbers, strings and nulls.
      let text = String(decoding: data, as: UTF8.self)
      let escaped = text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
        .replacingOccurrences(of: "\"", with: "&quot;")
      let template = "<receipt><text>${\(escaped)}</text><if test=\"\(escaped)\"><text>yes</text></if></receipt>"
      guard (try? Data(template.utf8).write(to: scratch.appendingPathComponent("t.xml"))) != nil else { return }
      _ = try? engine.templateDocument(template: "t", data: expressionOrder, templates: scratch)
    case "config":
      _ = try? ReceiptServer.Configuration.Settings(data: data, file: scratch.appendingPathComponent("serve.json"))
    case "ipp":
      // An IPP request as the IPP printers read it: libcups' parser, the request's frame and
      // job ticket, and an answer written back with the request's attributes in it.
      _ = IPPFront.checkRequest(data, printer: ippPrinter)
    case "document":
      // A document an IPP client sends (PWG or Apple raster, JPEG, PNG) read into pages — here,
      // as the reader process does —, reduced to the printer's dots and laid out on 80 mm paper
      // at 203 dpi.
      guard let format = DocumentFormat.sniff(data), format.isPages, format != .pdf else { return }
      _ = try? engine.layOutDocument(
        data, format: format, setup: PageSetup(), options: DocumentPrintOptions(), title: "fuzz")
    case "pdf":
      // A PDF through poppler's pdfinfo and pdftoppm (processes of their own, bounded) and what
      // receipt reads of their answers: page sizes, the gray maps.
      guard data.starts(with: Array("%PDF".utf8)) else { return }
      _ = try? DocumentPages.readHere(
        data, format: .pdf, options: DocumentReadOptions(resolution: 203, paperWidth: 226.77))
    case "pagefile":
      // The pages a document reader process hands back, as the daemon reads them.
      _ = try? DocumentPageFile.read(data)
    default:
      fatalError("FUZZ_TARGET must be template, expression, json, image, http, config, ipp, document, pdf or pagefile")
    }
  }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> Int32 {
  Fuzz.run(Data(bytes: bytes, count: count))
  return 0
}

#if FUZZING
  /// libFuzzer's entry point for programs with their own `main` (SwiftPM names the executable's
  /// entry point, so libFuzzer's own `main` cannot be used).
  @_silgen_name("LLVMFuzzerRunDriver")
  func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> Int32
  ) -> Int32
#endif

@main
struct FuzzMain {
  static func main() {
    #if FUZZING
      var argc = CommandLine.argc
      var argv = CommandLine.unsafeArgv
      exit(LLVMFuzzerRunDriver(&argc, &argv) { bytes, count in fuzzOneInput(bytes, count) })
    #else
      // Replays corpus files: `FUZZ_TARGET=json receipt-fuzz Fuzz/Corpus/json/*`.
      for path in CommandLine.arguments.dropFirst() {
        guard let data = FileManager.default.contents(atPath: path) else { continue }
        Fuzz.run(data)
      }
      print("replayed \(CommandLine.arguments.count - 1) inputs for \(Fuzz.target)")
    #endif
  }
}
