import Foundation
import ReceiptPrint
import Testing

/// CloudPRNT polls read as Star documents them: `statusCode` (Star CloudPRNT Protocol Guide,
/// "Printer Status Codes": 2xx online, 211 paper low, 410 out of paper, 411 paper jam, 42x
/// cover open, 5xx client errors) and the ASB bytes of `status` (STAR Line Mode Command
/// Specifications, automatic status: 3rd byte bit 3 offline, bit 5 cover open; 4th byte bit 3
/// autocutter error; 6th byte bit 3 paper end, bit 2 near end).
@Suite struct CloudPRNTStatusTests {
  @Test(
    arguments: [
      ("200%20OK", nil, PrinterState.idle, [String]()),
      ("200 OK", nil, .idle, []),
      ("211%20Paper%20Low", nil, .idle, ["media-low"]),
      ("410%20Out%20of%20paper", nil, .stopped, ["media-empty"]),
      ("411 Paper jam", nil, .stopped, ["media-jam"]),
      ("420%20Cover%20open", nil, .stopped, ["cover-open"]),
      ("402 Something new", nil, .stopped, ["other"]),
      // ASB: byte 6 bit 3 paper end, byte 3 bit 5 cover open, byte 6 bit 2 near end, byte 4 bit 3 cutter.
      ("200 OK", "23 86 00 00 00 08 00 00 00", .stopped, ["media-empty"]),
      ("200 OK", "238620000000000000", .stopped, ["cover-open"]),
      ("200 OK", "23 86 00 00 00 04 00 00 00", .idle, ["media-low"]),
      ("200 OK", "23 86 00 08 00 00 00 00 00", .stopped, ["other"]),
      ("200 OK", "23 86 08 00 00 00 00 00 00", .stopped, ["offline-report"]),
      ("200 OK", "not hex", .idle, []),
      ("200 OK", "２３ ８６ 00 00 00 08", .idle, []),  // fullwidth digits are not hex here
      ("200 OK", String(repeating: "08", count: 40_000), .idle, []),  // longer than any ASB: ignored
    ] as [(String, String?, PrinterState, [String])])
  func aPollSaysWhetherThePrinterCanPrint(code: String, asb: String?, state: PrinterState, reasons: [String]) {
    let status = CloudPRNTStatus(statusCode: code, status: asb).printerStatus
    #expect(status.state == state && status.reasonKeywords == reasons, "\(code) \(asb ?? ""): \(status)")
  }

  @Test func confirmationsSayWhetherTheJobPrinted() {
    #expect(PolledConfirmation(cloudPRNTCode: "200%20OK") == .printed)
    #expect(PolledConfirmation(cloudPRNTCode: "OK") == .failed("no code"), "a code is three digits")
    #expect(
      PolledConfirmation(cloudPRNTCode: "510 Incompatible media type") == .refused("510 Incompatible media type"))
    #expect(PolledConfirmation(cloudPRNTCode: "520%20Timeout") == .failed("520 Timeout"))
    #expect(PolledConfirmation(cloudPRNTCode: "410 Out of paper") == .failed("410 Out of paper"))
  }

  @Test func cloudPRNTAddressesAreMACAddresses() throws {
    for text in ["cloudprnt:00:11:62:1D:9A:B7", "cloudprnt:0011621d9ab7", "cloudprnt:00-11-62-1d-9a-b7"] {
      let address = try #require(PrinterAddress.parse(text, bareQueues: false), "\(text)")
      #expect(
        address.address == "cloudprnt:00:11:62:1d:9a:b7"
          && address.delivery == .polled(device: "cloudprnt:00:11:62:1d:9a:b7"))
    }
    // Fullwidth digits are hex digits to Swift's Character, not in a MAC address.
    for bad in [
      "cloudprnt:", "cloudprnt:00:11:62", "cloudprnt:00:11:62:1d:9a:zz", "cloudprnt:00:11:62:1d:9a:b7:01",
      "cloudprnt:００:11:62:1d:9a:b7", "cloudprnt:0011621d9aé",
    ] {
      #expect(PrinterAddress.parse(bad) == nil, "\(bad)")
    }
    #expect(throws: PrintError.self) {
      try PrinterAddress.open("cloudprnt:0011621d9ab7").send(
        Data(), of: try PrinterTests.receipt(), job: PrintJob(name: "x"))
    }
  }
}

/// Server Direct Print results read as Epson documents them (Server Direct Print User's Manual,
/// "Request (Printing Result)": the manual's own example, status 251658262 with success).
@Suite struct EpsonSDPResultTests {
  @Test func theManualsExampleResultIsRead() throws {
    let xml = """
      <?xml version="1.0" encoding="UTF-8"?>
      <PrintResponseInfo Version="3.00"><ServerDirectPrint><Response Success="true"/></ServerDirectPrint>
      <ePOSPrint><Parameter><devid>local_printer</devid><printjobid>ABC123</printjobid></Parameter>
      <PrintResponse><response xmlns="http://www.epson-pos.com/schemas/2011/03/epos-print" success="true" code="" status="251658262" battery="0"/></PrintResponse></ePOSPrint>
      </PrintResponseInfo>
      """
    let result = try #require(EpsonSDPResult(xml: Data(xml.utf8)))
    #expect(result.accepted && result.prints == [.init(jobID: "ABC123", success: true, code: "", status: 251_658_262)])
    #expect(EpsonSDPResult.printerStatus(bits: 251_658_262).state == .idle)
  }

  @Test func failuresAndRefusalsAreRead() throws {
    let refused = """
      <?xml version="1.0" encoding="utf-8"?><PrintResponseInfo Version="3.00"><ServerDirectPrint><Response Success="false">
      <ErrorSummary>Invalid XML format</ErrorSummary><ErrorDetail>line 9</ErrorDetail></Response></ServerDirectPrint></PrintResponseInfo>
      """
    let result = try #require(EpsonSDPResult(xml: Data(refused.utf8)))
    #expect(!result.accepted && result.error == "Invalid XML format: line 9" && result.prints.isEmpty)
    let empty = EpsonSDPResult.printerStatus(bits: 0x0008_0008, code: "EPTR_REC_EMPTY")
    #expect(empty.state == .stopped && empty.reasons == ["media-empty"])
    #expect(EpsonSDPResult.printerStatus(bits: 0x20).reasons == ["cover-open"])
    #expect(EpsonSDPResult.printerStatus(bits: 0x20000).reasons == ["media-low"])
    #expect(EpsonSDPResult(xml: Data(#"<!DOCTYPE x [<!ENTITY a "b">]><PrintResponseInfo/>"#.utf8)) == nil)
    #expect(EpsonSDPResult(xml: Data("<other/>".utf8)) == nil)
  }
}
