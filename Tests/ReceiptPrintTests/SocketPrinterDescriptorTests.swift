import Foundation
import ReceiptKit
import ReceiptPrint
import ReceiptTestSupport
import Testing

/// A socket printer's connection is close-on-exec: a helper started while a JetDirect printer
/// prints (a document reader, poppler) must not hold the printer's connection open — the
/// printer ends a job when its connection closes. Read from the kernel's view of the open
/// descriptor (`/proc/self/fdinfo`), not from our code.
@Suite struct SocketPrinterDescriptorTests {
  /// The descriptors of this process connected to `port` on loopback, with their `flags` (octal).
  static func connections(to port: UInt16) -> [(fd: Int32, flags: Int)] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    return names.compactMap { name -> (Int32, Int)? in
      guard let fd = Int32(name) else { return nil }
      var address = sockaddr_in()
      var length = socklen_t(MemoryLayout<sockaddr_in>.size)
      let named = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) }
      }
      guard named == 0, address.sin_family == sa_family_t(AF_INET), UInt16(bigEndian: address.sin_port) == port,
        let info = try? String(contentsOfFile: "/proc/self/fdinfo/\(fd)", encoding: .utf8),
        let line = info.split(separator: "\n").first(where: { $0.hasPrefix("flags:") }),
        let flags = Int(line.dropFirst("flags:".count).trimmingCharacters(in: .whitespaces), radix: 8)
      else { return nil }
      return (fd, flags)
    }
  }

  @Test func thePrintersConnectionIsCloseOnExec() throws {
    let listener = try SocketListener()
    let printer = try #require(SocketPrinter(uri: "socket://127.0.0.1:\(listener.port)"))
    var seen: [(fd: Int32, flags: Int)] = []
    try printer.sendStreaming(job: PrintJob(name: "cloexec")) { send in
      try send(Data("\u{1B}@".utf8))
      seen = Self.connections(to: listener.port)
    }
    try #require(seen.count == 1, "the printer's connection among this process's descriptors: \(seen)")
    #expect(seen[0].flags & Int(O_CLOEXEC) != 0, "flags \(String(seen[0].flags, radix: 8)) lack O_CLOEXEC")
    #expect(listener.connection(0, timeout: 10) == Data("\u{1B}@".utf8), "the printer got the bytes")
  }
}
