import Foundation
import ReceiptTestSupport
import Testing

/// `receipt print --wait` on a raw printer whose model confirms prints, on the shipped binary
/// against the thermal printer simulator: exit 0 only once the printer answered, exit 75 when
/// it ran out of paper mid-receipt, exit 69 with nothing sent when it was out of paper before.
@Suite struct CLIRawPrinterTests {
  var receipt: String { (try? Tool.shippedBinary()) ?? "receipt-release-binary-missing" }
  var order: String { Tool.packageRoot.appendingPathComponent("Templates/Examples/small.json").path }

  /// `receipt print` of the shop example on the simulator as a TM-T88V, waiting.
  func printWaiting(on simulator: ThermalPrinterSimulator) throws -> Tool.Result {
    try Tool.run(
      receipt,
      ["print", order, "--printer", "socket://127.0.0.1:\(simulator.port)", "--model", "epson-tm-t88v", "--wait"])
  }

  @Test func waitMeansThePrinterConfirmedIt() throws {
    let simulator = try ThermalPrinterSimulator(model: .epsonTMT88)
    simulator.printSlowly(rowsPerSecond: 1500)
    let result = try printWaiting(on: simulator)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("confirmed by the printer"), "\(result.stdout)")
    #expect(simulator.confirmedProcessIDs.count == 1 && simulator.pages.first?.cut == "partial")
  }

  @Test func paperOutMidReceiptIsExit75AndTheRestIsCleared() throws {
    let simulator = try ThermalPrinterSimulator(model: .epsonTMT88)
    simulator.runOutOfPaper(afterRows: 300)
    let result = try printWaiting(on: simulator)
    #expect(result.status == 75, "\(result.status): \(result.stderr)")
    #expect(result.stderr.contains("out of paper"), "\(result.stderr)")
    #expect(result.stderr.contains("what had not printed was cleared from the printer"), "\(result.stderr)")
    // A one-shot print has no queue: it does not promise to print again.
    #expect(!result.stderr.contains("reprint") && !result.stderr.contains("prints again"), "\(result.stderr)")
    #expect(simulator.bufferClears == 1 && simulator.confirmedProcessIDs.isEmpty)
  }

  @Test func aPrinterOutOfPaperBeforeAnythingIsSentGetsNothing() throws {
    let simulator = try ThermalPrinterSimulator(model: .epsonTMT88)
    simulator.set(paperEnd: true)
    let result = try printWaiting(on: simulator)
    #expect(result.status == 69, "\(result.status): \(result.stderr)")
    #expect(result.stderr.contains("nothing was sent") && result.stderr.contains("paper"), "\(result.stderr)")
    #expect(simulator.pages.isEmpty && simulator.refusedCommands.isEmpty, "no receipt bytes reached the printer")
  }

  /// A printer that floods its channel with `37h` bytes (the start of every response, never
  /// ended): the waiting `receipt print` costs under a tenth of a core — the reply reader once
  /// rescanned its buffer per byte and read as fast as the printer sent — and gives up on it with
  /// exit 75 once it has sent 64 KiB that are no replies, instead of waiting out the timeout.
  @Test func aFloodingPrinterCostsLittleCPU() throws {
    let flood = try FloodPrinter()
    let (result, cost) = try Tool.runMeasured(
      receipt, ["print", order, "--printer", "socket://127.0.0.1:\(flood.port)", "--model", "epson-tm-t88v", "--wait"])
    #expect(result.status == 75, "\(result.status): \(result.stderr)")
    #expect(result.stderr.contains("bytes that are no ESC/POS replies"), "\(result.stderr)")
    #expect(cost.cpuSeconds < 0.1 * cost.seconds, "\(cost.cpuSeconds) s of CPU in \(cost.seconds) s")
  }
}
