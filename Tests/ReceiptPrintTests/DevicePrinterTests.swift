import Foundation
import ReceiptLayout
import ReceiptModel
import ReceiptTestSupport
import Testing

@testable import ReceiptPrint

#if canImport(Glibc)
  import Glibc
#endif

/// USB and serial printers, through a pseudo-terminal: a real character device and a real serial
/// line discipline (termios), read on the other side as the printer would (a stand-in for
/// hardware that cannot exist here).
@Suite struct DevicePrinterTests {
  /// A pty pair: the printer writes to `path` (the slave), the test reads the master.
  final class PTY: @unchecked Sendable {  // fds used from one reader thread and the test; joined before close
    let master: Int32
    let slave: Int32  // held open so the line's settings stay for the test to read
    let path: String

    init() throws {
      // posix_openpt/grantpt/unlockpt/ptsname by hand (glibc hides them from Swift): open the
      // multiplexer, unlock the slave (TIOCSPTLCK) and ask its number (TIOCGPTN).
      master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
      var unlock: Int32 = 0
      var number: UInt32 = 0
      guard master >= 0, ioctl(master, 0x4004_5431, &unlock) == 0, ioctl(master, 0x8004_5430, &number) == 0 else {
        throw PrintError.output("no pty: \(String(cString: strerror(errno)))")
      }
      path = "/dev/pts/\(number)"
      slave = open(path, O_RDWR | O_NOCTTY)
      guard slave >= 0 else { throw PrintError.output("cannot open \(path)") }
    }

    /// Makes the line raw, as a USB printer device is (no newline translation).
    func raw() {
      var t = termios()
      tcgetattr(slave, &t)
      cfmakeraw(&t)
      tcsetattr(slave, TCSANOW, &t)
    }

    /// Reads `count` bytes from the master (at most `seconds`), in a thread of its own.
    func read(count: Int, seconds: Double = 20) -> () -> Data {
      let box = Box()
      let thread = Thread { [master] in
        var buffer = [UInt8](repeating: 0, count: 65536)
        let deadline = Date().addingTimeInterval(seconds)
        while box.data.count < count, Date() < deadline {
          var pfd = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
          guard poll(&pfd, 1, 100) > 0 else { continue }
          let n = Glibc.read(master, &buffer, buffer.count)
          if n <= 0 { break }
          box.data.append(contentsOf: buffer[0..<n])
        }
        box.done.signal()
      }
      thread.start()
      return {  // call once
        box.done.wait()
        return box.data
      }
    }

    final class Box: @unchecked Sendable {  // written by the reader thread, read after `done`
      var data = Data()
      let done = DispatchSemaphore(value: 0)
    }

    deinit {
      close(slave)
      close(master)
    }
  }

  static let engine = try! ReceiptLayoutEngine()

  /// Every baud rate and flow mode the README lists, as `stty` (coreutils, not our termios
  /// table) reads the line back while the printer's side holds it.
  @Test(
    arguments: zip(
      [9600, 19200, 38400, 57600, 115200, 230400], ["none", "rtscts", "xonxoff", "rtscts", "none", "xonxoff"]))
  func everyBaudRateAndFlowModeSetsTheLine(baud: Int, flow: String) throws {
    let pty = try PTY()
    let printer = try #require(
      try PrinterAddress.open("serial:\(pty.path)?baud=\(baud)&flow=\(flow)") as? DevicePrinter)
    let reading = pty.read(count: 3)
    try printer.send(Data([0x1B, 0x40, 0x0A]))
    #expect(reading() == Data([0x1B, 0x40, 0x0A]), "raw: 0x0A stays 0x0A")
    let settings = try Tool.run("stty", ["-F", pty.path, "-a"]).stdout
    #expect(settings.contains("speed \(baud) baud;"), "\(settings)")
    let words = Set(settings.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == ";" }).map(String.init))
    #expect(words.contains(flow == "rtscts" ? "crtscts" : "-crtscts"), "\(settings)")
    #expect(
      words.contains(flow == "xonxoff" ? "ixon" : "-ixon") && words.contains(flow == "xonxoff" ? "ixoff" : "-ixoff"))
    #expect(words.contains("cs8") && words.contains("-parenb") && words.contains("-cstopb"), "8N1: \(settings)")
  }

  @Test(arguments: [9600, 115200])
  func aSerialPrinterGetsTheESCPOSAtItsBaudRate(baud: Int) throws {
    let pty = try PTY()
    let receipt = try Self.engine.layout(SampleReceipts.twoPages())
    let expected = try PrintPath.escpos.encode(receipt)
    let printer = try #require(
      try PrinterAddress.open("serial:\(pty.path)?baud=\(baud)&flow=rtscts") as? DevicePrinter)
    #expect(printer.baud == baud && printer.flow == .rtscts)
    let reading = pty.read(count: expected.count)
    _ = try printer.submit(receipt, job: PrintJob(name: "t"))
    let received = reading()
    #expect(received == expected, "the line carried the ESC/POS bytes unchanged")
    // The line was set up as asked: raw, the baud rate, RTS/CTS.
    var t = termios()
    #expect(tcgetattr(pty.slave, &t) == 0)
    #expect(cfgetospeed(&t) == DevicePrinter.bauds[baud]!)
    #expect(t.c_cflag & tcflag_t(CRTSCTS) != 0)
    #expect(t.c_oflag & tcflag_t(OPOST) == 0, "no output processing: 0x0A stays 0x0A")
  }

  @Test func aUSBPrinterIsACharacterDeviceWrittenAsIs() throws {
    let pty = try PTY()
    pty.raw()
    let receipt = try Self.engine.layout(SampleReceipts.twoPages())
    let expected = try PrintPath.escpos.encode(receipt, copies: 2)
    let printer = try #require(try PrinterAddress.open("usb:\(pty.path)") as? DevicePrinter)
    // Nobody answers the status request here: unknown; the request went down the same line.
    #expect(printer.status(timeout: 0.2).state == .unknown)
    let received = pty.read(count: ESCPOSStatus.request.count + expected.count)
    _ = try printer.submit(receipt, job: PrintJob(name: "t", copies: 2))
    #expect(received() == ESCPOSStatus.request + expected)
  }

  /// The API asks a USB printer's status while its worker sends a receipt: the request must
  /// not land inside the receipt's bytes (Epson's `DLE EOT` notes: inside another command's
  /// data it is read as that data). The line gets the receipt and nothing else; the status says
  /// the printer is printing; once the job is sent the printer is asked again.
  @Test func aStatusRequestNeverLandsInsideAJobBeingSent() throws {
    let pty = try PTY()
    pty.raw()
    let printer = try #require(DevicePrinter(address: "usb:\(pty.path)"))
    // Read as it comes (a printer taking data, so a request would find room on the line), and
    // long enough to be asked in the middle.
    let job = Data((0..<(16 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
    let received = pty.read(count: job.count)
    let sent = DispatchSemaphore(value: 0)
    let sender = Thread {
      try? printer.send(job, timeout: 20)
      sent.signal()
    }
    sender.start()
    let line = DeviceLines.key(pty.path)
    #expect(waitUntil(seconds: 10, poll: 0.001) { DeviceLines.shared.isBusy(line) }, "the send took the line")
    let during = printer.status(timeout: 0.2)
    #expect(during.state == .processing, "\(during)")
    #expect(sent.wait(timeout: .now() + 20) == .success)
    #expect(received() == job, "the line carried the job and nothing else")
    // Free again: the request goes down the line (nobody answers it here: unknown).
    let after = pty.read(count: ESCPOSStatus.request.count, seconds: 5)
    #expect(printer.status(timeout: 0.2).state == .unknown)
    #expect(after() == ESCPOSStatus.request)
  }

  @Test func aPrinterThatTakesNothingTimesOutWithAClearError() throws {
    let pty = try PTY()
    pty.raw()
    let printer = try #require(DevicePrinter(address: "usb:\(pty.path)"))
    let start = Date()
    #expect {
      try printer.send(Data(repeating: 0x20, count: 4 << 20), timeout: 1)
    } throws: { "\($0)".contains("and then nothing for 1 s; is it on and has it paper?") }
    #expect(Date().timeIntervalSince(start) < 1 + 10, "bounded by its timeout (plus room for a loaded machine)")
  }

  @Test func aSerialPrinterAnswersStatusOnTheSameLine() throws {
    let pty = try PTY()
    let simulator = try ThermalPrinterSimulator()  // its status bytes, written from Epson's layout
    simulator.set(paperEnd: true)
    let answer = Thread { [master = pty.master] in
      var request = [UInt8](repeating: 0, count: 12)
      var got = 0
      let deadline = Date().addingTimeInterval(5)
      while got < 12, Date() < deadline {
        var pfd = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        guard poll(&pfd, 1, 100) > 0 else { continue }
        let n = request.withUnsafeMutableBytes { Glibc.read(master, $0.baseAddress! + got, 12 - got) }
        if n <= 0 { return }
        got += n
      }
      guard got == 12, request == [0x10, 0x04, 1, 0x10, 0x04, 2, 0x10, 0x04, 3, 0x10, 0x04, 4] else { return }
      var reply = (1...4).map { simulator.statusByte(UInt8($0)) }
      _ = Glibc.write(master, &reply, 4)
    }
    answer.start()
    let printer = try #require(DevicePrinter(address: "serial:\(pty.path)?baud=115200"))
    let status = printer.status(timeout: 3)
    #expect(status.state == .stopped && status.reasons == ["media-empty"], "\(status)")
    // No answer at all: unknown, within the timeout.
    let silent = try PTY()
    let quiet = try #require(DevicePrinter(address: "serial:\(silent.path)"))
    #expect(quiet.status(timeout: 0.3).state == .unknown)
  }

  @Test func badAndMissingDevicesAreClearErrors() throws {
    for bad in [
      "usb:/etc/passwd", "usb:/dev/../etc/passwd", "serial:/dev/ttyS0?baud=12345", "serial:/dev/ttyS0?flow=magic",
      "usb:/dev/usb/lp0?baud=9600", "serial:/dev/ttyS0?parity=odd",
    ] {
      #expect(throws: PrintError.badAddress(bad)) { try PrinterAddress.open(bad) }
    }
    let missing = try #require(DevicePrinter(address: "usb:/dev/usb/lp-receipt-missing"))
    #expect(try missing.status().state == .unavailable)
    #expect {
      try missing.send(Data([0x1B, 0x40]))
    } throws: { "\($0)".contains("cannot open printer /dev/usb/lp-receipt-missing") }
  }
}
