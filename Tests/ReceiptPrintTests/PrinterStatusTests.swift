import Foundation
import ReceiptLayout
import ReceiptModel
import ReceiptPrint
import ReceiptTestSupport
import Testing

/// Live status of raw ESC/POS printers (`DLE EOT 1…4`) against a simulated printer whose replies
/// are written from Epson's byte layouts independently of the parser under test.
@Suite struct PrinterStatusTests {
  @Test(arguments: [
    ("ready", PrinterState.idle, [String]()), ("near end", .idle, ["media-low"]),
    ("paper end", .stopped, ["media-empty"]),
    ("cover open", .stopped, ["cover-open"]), ("cutter", .stopped, ["other"]),
  ])
  func aSocketPrinterReportsItsStateInIPPTerms(condition: String, state: PrinterState, reasons: [String]) throws {
    let simulator = try ThermalPrinterSimulator()
    simulator.set(
      paperEnd: condition == "paper end", paperNearEnd: condition == "near end", coverOpen: condition == "cover open",
      cutterError: condition == "cutter")
    let printer = try #require(SocketPrinter(uri: "socket://127.0.0.1:\(simulator.port)"))
    let status = try printer.status()
    #expect(status.state == state && status.reasonKeywords == reasons, "\(condition): \(status)")
    #expect(simulator.statusRequestCount == 4)
    if condition == "cutter" { #expect(status.message == "autocutter error") }
    if condition == "paper end" { #expect(status.message == "out of paper") }
  }

  @Test func theParserAndTheSimulatorAgreeOnEveryByte() throws {
    let simulator = try ThermalPrinterSimulator()
    for (paperEnd, nearEnd, cover, cutter) in [
      (false, false, false, false), (true, false, false, false), (false, true, false, false),
      (false, false, true, false), (false, false, false, true), (true, false, true, false),
    ] {
      simulator.set(paperEnd: paperEnd, paperNearEnd: nearEnd, coverOpen: cover, cutterError: cutter)
      let bytes = (1...4).map { simulator.statusByte(UInt8($0)) }
      #expect(bytes.allSatisfy(ESCPOSStatus.isStatusByte), "fixed bits 1 and 4 set, 0 and 7 clear")
      let parsed = try #require(ESCPOSStatus(replies: bytes))
      #expect(parsed.paperEnd == paperEnd && parsed.coverOpen == cover && parsed.cutterError == cutter)
      #expect(parsed.paperNearEnd == (nearEnd || paperEnd))
      #expect(parsed.replies == bytes, "our encoding of the same status is the simulator's")
    }
    #expect(ESCPOSStatus(replies: [0x12, 0x12, 0x12, 0x13]) == nil, "bit 0 set: not a status byte")
    #expect(ESCPOSStatus(replies: [0x12, 0x12, 0x12]) == nil)
  }

  @Test func unreachableAndSilentPrintersSaySo() throws {
    let nobody = try #require(SocketPrinter(uri: "socket://127.0.0.1:\(try PrintRig.freePortForTests())"))
    #expect(try nobody.status().state == .unavailable)
    let silent = try SocketListener()  // takes bytes, never answers
    let printer = try #require(SocketPrinter(uri: "socket://127.0.0.1:\(silent.port)"))
    let start = Date()
    let status = printer.status(timeout: 0.5)
    #expect(status.state == .unknown && status.message.contains("does not answer"))
    #expect(Date().timeIntervalSince(start) < 0.5 + 10, "bounded by its timeout (plus room for a loaded machine)")
  }

  @Test func statusRequestsDoNotDisturbPrinting() throws {
    let simulator = try ThermalPrinterSimulator()
    let printer = try #require(SocketPrinter(uri: "socket://127.0.0.1:\(simulator.port)"))
    let receipt = try ReceiptLayoutEngine().layout(SampleReceipts.twoPages())
    let expected = try PrintPath.escpos.encode(receipt)
    _ = try printer.status()
    _ = try printer.submit(receipt, job: PrintJob(name: "t"))
    let deadline = Date().addingTimeInterval(10)
    while simulator.jobs.isEmpty, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
    #expect(simulator.jobs == [expected], "raster bytes that look like DLE EOT are image data, not requests")
  }
}
