import Foundation
import ReceiptTestSupport
import Testing

/// Hundreds of generated orders per printer model, encoded by the shipped binary
/// (`receipt render - --format escpos --model M`, the bytes the daemon sends), each stream read
/// back strictly by the printer simulator's receive side (written from Epson's and Star's
/// references): no byte it would misread, no command cut short. A flake once had the TM-T20III
/// simulator refuse "byte 0x50" mid-stream; a printer that misreads one byte prints garbage for
/// the rest of the receipt. `RECEIPT_STREAM_ORDERS` sets the orders per model (default 150).
@Suite struct StreamStrictnessTests {
  static let count = ProcessInfo.processInfo.environment["RECEIPT_STREAM_ORDERS"].flatMap(Int.init) ?? 150
  /// Every shipped model on each of its papers.
  static let models = [
    ("epson-tm-t88v", "80mm"), ("epson-tm-t88v", "58mm"), ("epson-tm-t88vi", "80mm"), ("epson-tm-t88vi", "58mm"),
    ("epson-tm-t20iii", "80mm"), ("epson-tm-m30iii", "80mm"), ("star-tsp143iv", "80mm"), ("star-mcprint3", "80mm"),
    ("bixolon-srp-350iii", "80mm"), ("bixolon-srp-350iii", "58mm"), ("generic-80mm", "80mm"), ("generic-58mm", "58mm"),
  ]

  @Test(arguments: models) func everyModelsStreamsReadStrictly(model: String, paper: String) throws {
    let directory = try Tool.temporaryDirectory()
    var random = SeededGenerator(defaultSeed: 0x5EED_0009)
    var lines = Data()
    for n in 0..<Self.count { lines += try GeneratedOrders.order(n, &random).data + Data("\n".utf8) }
    let result = try Tool.run(
      try Tool.shippedBinary(),
      ["render", "-", "-o", directory.path + "/", "--format", "escpos", "--model", model, "--paper", paper, "--quiet"],
      stdin: lines)
    #expect(result.status == 0, "\(model): \(result.stderr.prefix(500))")
    let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".escpos") }
    #expect(files.count == Self.count, "\(model): \(files.count) streams")
    var refused: [String] = []
    for file in files.sorted() {
      let read = SimulatedCommandParser.strictlyRead(try Data(contentsOf: directory.appendingPathComponent(file)))
      if !read.refused.isEmpty || read.leftover != 0 {
        refused.append("\(file): \(read.refused.prefix(2)) leftover \(read.leftover)")
      }
    }
    #expect(refused.isEmpty, "\(model) \(paper), \(random.seedNote): \(refused.prefix(5))")
  }
}
