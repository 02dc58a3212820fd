import Foundation
import ReceiptPrint
import ReceiptTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Star's automatic status (`ESC ACK SOH`), read from bytes laid out by hand from the STAR Line
/// Mode Command Specifications Rev. 0.00 (Appendix 5-2-3, pp. 5-7…5-11), and asked of the
/// simulated Star printer over TCP (with Ethernet's two length bytes) and over a serial line
/// (without them).
@Suite struct StarStatusTests {
  /// Nine bytes, version 3: header 1 23h (9 in bits 1–3 and 5, bit 0 set), header 2 06h.
  static func status(_ third: UInt8 = 0, _ fourth: UInt8 = 0, _ sixth: UInt8 = 0) -> [UInt8] {
    [0x23, 0x06, third, fourth, 0, sixth, 0, 0, 0]
  }

  @Test func theManualsBitsReadAsTheyAreDocumented() throws {
    #expect(StarStatus.byteCount(header: 0x23) == 9)
    #expect(StarStatus.byteCount(header: 0x0F) == 7, "7 = 0111b in bits 1–3")
    #expect(StarStatus.byteCount(header: 0x63) == 9, "bit 6 is for future expansion, ignored")
    #expect(StarStatus.byteCount(header: 0x22) == nil, "bit 0 marks header 1")
    #expect(StarStatus.byteCount(header: 0x33) == nil, "bit 4 is 0 in header 1")
    #expect(try #require(StarStatus(Self.status())).printerStatus.state == .idle)
    var ethernet = Self.status()
    ethernet[1] |= 0x80
    #expect(StarStatus(ethernet) != nil, "header 2's bit 7: the length bytes follow (not part of the status)")
    let paperOut = try #require(StarStatus(Self.status(0x08, 0, 0x0C)))
    #expect(paperOut.paperEnd && paperOut.offline && !paperOut.coverOpen)
    #expect(
      paperOut.printerStatus.reasonKeywords == ["media-empty"] && paperOut.printerStatus.message == "out of paper")
    let nearEnd = try #require(StarStatus(Self.status(0, 0, 0x04)))
    #expect(nearEnd.printerStatus.state == .idle && nearEnd.printerStatus.reasonKeywords == ["media-low"])
    let outerNearEnd = try #require(StarStatus(Self.status(0, 0, 0x02)))
    #expect(outerNearEnd.paperNearEnd, "the outer near-end sensor (bit 1)")
    let cover = try #require(StarStatus(Self.status(0x28)))
    #expect(cover.printerStatus.reasonKeywords == ["cover-open"])
    let cutter = try #require(StarStatus(Self.status(0x08, 0x08)))
    #expect(cutter.printerStatus.message == "autocutter error" && cutter.printerStatus.state == .stopped)
    let hot = try #require(StarStatus(Self.status(0x08, 0x40)))
    #expect(hot.printerStatus.message == "print head too hot")
    // Not an automatic status: a wrong count, a later byte with bit 0 (another header), too short.
    #expect(StarStatus(Array(Self.status().prefix(8))) == nil)
    #expect(StarStatus([0x23, 0x06, 0x01, 0, 0, 0, 0, 0, 0]) == nil)
    #expect(StarStatus([0x0B, 0x02, 0, 0, 0]) == nil, "five bytes hold no paper sensor")
    // What an ESC/POS printer answers to DLE EOT is no Star status.
    #expect(StarStatus([0x12, 0x12, 0x12, 0x12]) == nil)
  }

  @Test(arguments: [
    ("ready", PrinterState.idle, [String]()), ("near end", .idle, ["media-low"]),
    ("paper end", .stopped, ["media-empty"]), ("cover open", .stopped, ["cover-open"]),
    ("cutter", .stopped, ["other"]),
  ])
  func aStarSocketPrinterReportsItsStateInIPPTerms(condition: String, state: PrinterState, reasons: [String]) throws {
    let simulator = try ThermalPrinterSimulator(model: .starTSP100)
    simulator.set(
      paperEnd: condition == "paper end", paperNearEnd: condition == "near end", coverOpen: condition == "cover open",
      cutterError: condition == "cutter")
    let printer = try #require(SocketPrinter(uri: "socket://127.0.0.1:\(simulator.port)"))
    let status = printer.status(timeout: 2, asking: .star)
    #expect(status.state == state && status.reasonKeywords == reasons, "\(condition): \(status)")
    #expect(simulator.starStatusRequestCount == 1 && simulator.statusRequestCount == 0)
    #expect(simulator.refusedCommands.isEmpty)
  }

  /// On a serial line the answer has no length bytes: read by its header's count alone.
  @Test func aStarSerialPrinterAnswersWithoutTheLengthBytes() throws {
    let simulator = try ThermalPrinterSimulator(serialBaud: 115_200, model: .starTSP100)
    simulator.set(paperEnd: true)
    let path = try #require(simulator.devicePath)
    let printer = try #require(DevicePrinter(address: "serial:\(path)?baud=115200"))
    let status = printer.status(timeout: 2, asking: .star)
    #expect(status.state == .stopped && status.reasonKeywords == ["media-empty"], "\(status)")
    simulator.set(paperEnd: false)
    #expect(printer.status(timeout: 2, asking: .star).state == .idle)
  }

  /// An ESC/POS printer asked in Star's protocol does not answer with a Star status: unknown,
  /// never a state read from the wrong bytes.
  @Test func anESCPOSPrinterAskedTheStarWayIsUnknown() throws {
    let simulator = try ThermalPrinterSimulator()
    let printer = try #require(SocketPrinter(uri: "socket://127.0.0.1:\(simulator.port)"))
    #expect(printer.status(timeout: 1, asking: .star).state == .unknown)
  }
}
