import Foundation
import ReceiptTestSupport
import Testing

/// `receipt print --wait` on a raw printer whose model confirms prints, on the shipped binary
/// against the thermal printer simulator: exit 0 only once the printer answered, exit 75 when
/// it ran out of paper mid-receipt.
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
    #expect(simulator.bufferClears == 1 && simulator.confirmedProcessIDs.isEmpty)
  }
}
