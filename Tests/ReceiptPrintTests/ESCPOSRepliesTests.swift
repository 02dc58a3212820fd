import Foundation
import ReceiptModel
import ReceiptPrint
import ReceiptRender
import ReceiptTestSupport
import Testing

@testable import ReceiptLayout

/// The byte layouts of what receipt asks an ESC/POS printer and what it reads back, checked
/// against the vendors' published command references (the hex is copied from them, not from
/// the code), and the Star raster stream's framing.
@Suite struct ESCPOSRepliesTests {
  @Test func requestsAreTheDocumentedBytes() {
    // Epson ESC/POS reference, GS ( H <Function 48>: 1D 28 48 06 00 30 30 d1 d2 d3 d4.
    #expect(
      [UInt8](ESCPOSReply.processIDRequest("0042")) == [
        0x1D, 0x28, 0x48, 0x06, 0x00, 0x30, 0x30, 0x30, 0x30, 0x34, 0x32,
      ])
    // DLE DC4 (fn = 8): fn = 8, d1…d7 = 1, 3, 20, 1, 6, 2, 8.
    #expect([UInt8](ESCPOSReply.clearBuffers) == [0x10, 0x14, 8, 1, 3, 20, 1, 6, 2, 8])
    // GS a n: bit 1 online/offline, bit 2 error, bit 3 roll paper sensor.
    #expect([UInt8](ESCPOSReply.enableAutomaticStatus) == [0x1D, 0x61, 0b0000_1110])
    #expect(
      !ESCPOSReply.isProcessID("12345") && !ESCPOSReply.isProcessID("ab\u{7F}c") && ESCPOSReply.isProcessID(" ~0Z"))
  }

  @Test func automaticStatusBackIsReadAsEpsonLaysItOut() throws {
    // 1st byte: bit 4 fixed on, bit 3 offline, bit 5 cover open; 2nd: bit 3 autocutter error;
    // 3rd: bits 0-1 near end, bits 2-3 paper end.
    let clear = try #require(ESCPOSStatus(automaticStatusBack: [0x10, 0x00, 0x00, 0x00]))
    #expect(clear.printerStatus.state == .idle)
    let empty = try #require(ESCPOSStatus(automaticStatusBack: [0x18, 0x00, 0x0F, 0x00]))
    #expect(empty.paperEnd && empty.paperNearEnd && empty.printerStatus.reasons == ["media-empty"])
    let low = try #require(ESCPOSStatus(automaticStatusBack: [0x10, 0x00, 0x03, 0x00]))
    #expect(low.printerStatus.state == .idle && low.printerStatus.reasons == ["media-low"])
    let cover = try #require(ESCPOSStatus(automaticStatusBack: [0x38, 0x00, 0x00, 0x00]))
    #expect(cover.printerStatus.reasons == ["cover-open"])
    let cutter = try #require(ESCPOSStatus(automaticStatusBack: [0x18, 0x08, 0x00, 0x00]))
    #expect(cutter.cutterError && cutter.printerStatus.state == .stopped)
    #expect(ESCPOSStatus(automaticStatusBack: [0x12, 0, 0, 0]) == nil, "a real-time status byte is not ASB")
    for status in [clear, empty, low, cover, cutter] {
      #expect(ESCPOSStatus(automaticStatusBack: status.automaticStatusBack) == status)
    }
  }

  @Test func repliesAreSplitHoweverTheyArrive() {
    var reader = ESCPOSReplyReader()
    // Process ID response: 37h 22h d1 d2 d3 d4 00h, here in three pieces.
    #expect(reader.read([0x37, 0x22, 0x41]).isEmpty)
    #expect(reader.read([0x37, 0x23]).isEmpty)
    #expect(reader.read([0x7A, 0x00]) == [.processID("A7#z")])
    // Real-time bytes, an ASB packet, XOFF (13h) on a serial line, the clear response 37h 25h 00h.
    let replies = reader.read([0x12, 0x18, 0x00, 0x0F, 0x00, 0x13, 0x37, 0x25, 0x00, 0x16])
    var empty = ESCPOSStatus()
    (empty.paperEnd, empty.paperNearEnd, empty.stoppedByPaperEnd, empty.offline) = (true, true, true, true)
    #expect(replies == [.realtimeStatus(0x12), .automaticStatus(empty), .buffersCleared, .realtimeStatus(0x16)])
  }

  /// A printer that floods `37h` bytes (found keeping a core busy: every byte rescanned the whole
  /// buffer for a NUL): 4 MB are read in one pass (the old reader needed ~10^12 steps), and a
  /// process ID response in the flood is still found, read back from its NUL. (The limit is wide:
  /// alone it takes a second in a debug build, but in the full suite on two cores it once waited
  /// past a minute for a thread; the quadratic reader would need hours.)
  @Test(.timeLimit(.minutes(5))) func aFloodIsReadInLinearTimeAndAConfirmationInItIsFound() {
    var reader = ESCPOSReplyReader()
    let flood = [UInt8](repeating: 0x37, count: 1 << 20)
    for _ in 0..<4 { #expect(reader.read(flood).isEmpty) }
    #expect(reader.ignoredBytes >= 4 << 20 - 64, "counted as no replies")
    #expect(
      reader.read(flood.prefix(10) + [0x37, 0x22, 0x41, 0x37, 0x23, 0x7A, 0x00] + flood.prefix(3)) == [
        .processID("A7#z")
      ])
    #expect(reader.read([0x37, 0x37, 0x25, 0x00]) == [.buffersCleared])
  }

  @Test func theSimulatorSendsTheStatusItIsAskedFor() throws {
    // GS a on a live connection: the simulator (written from the reference) answers at once
    // with its status, and again when the paper runs out.
    let simulator = try ThermalPrinterSimulator()
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = simulator.port.bigEndian
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    #expect(connected == 0)
    var timeout = timeval(tv_sec: 5, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    func packet() -> [UInt8] {
      var bytes = [UInt8](repeating: 0, count: 4)
      var got = 0
      while got < 4 {
        let n = recv(fd, &bytes[got], 4 - got, 0)
        if n <= 0 { break }
        got += n
      }
      return Array(bytes.prefix(got))
    }
    let request = [UInt8](ESCPOSReply.enableAutomaticStatus)
    #expect(send(fd, request, request.count, 0) == 3)
    #expect(ESCPOSStatus(automaticStatusBack: packet())?.printerStatus.state == .idle)
    simulator.set(paperEnd: true)
    #expect(ESCPOSStatus(automaticStatusBack: packet())?.printerStatus.reasons == ["media-empty"])
  }

  @Test func starRasterFramesEveryPage() throws {
    let image = RasterImage(width: 16, height: 3, bitsPerPixel: 1, data: [0x80, 0x00, 0x00, 0x00, 0x00, 0x01])
    var setup = PageSetup(paper: .custom(width: .pt(16 * 72 / 203.0), printableWidth: .pt(16 * 72 / 203.0)))
    setup.resolution = Resolution(dpi: 203)
    let page = LaidOutPage(
      width: 16, contentHeight: 3, cutLength: 3, items: [], commands: [.drawerKick(.pin2)], cut: nil)
    let receipt = LaidOutReceipt(pageSetup: setup, pages: [page], title: "t")
    let bytes = [UInt8](StarRasterEncoder().encode([image], receipt: receipt))
    // STAR Line Mode raster: ESC @, ESC * r A, ESC * r P 0 NUL, ESC * r F 13 NUL (partial cut),
    // b 01 00 80 (a row of one byte), ESC * r Y 1 NUL (a blank row), b 02 00 00 01,
    // ESC FF NUL, ESC * r B, BEL (drawer 1).
    var expected: [UInt8] = [0x1B, 0x40, 0x1B, 0x2A, 0x72, 0x41]
    expected += [0x1B, 0x2A, 0x72, 0x50, 0x30, 0x00, 0x1B, 0x2A, 0x72, 0x46, 0x31, 0x33, 0x00]
    expected += [0x62, 0x01, 0x00, 0x80, 0x1B, 0x2A, 0x72, 0x59, 0x31, 0x00, 0x62, 0x02, 0x00, 0x00, 0x01]
    expected += [0x1B, 0x0C, 0x00, 0x1B, 0x2A, 0x72, 0x42, 0x07]
    #expect(bytes == expected, "\(bytes.map { String(format: "%02X", $0) }.joined(separator: " "))")
  }
}
