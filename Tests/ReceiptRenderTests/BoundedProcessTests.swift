import Foundation
import Testing

@testable import ReceiptRender

#if canImport(Glibc)
  import Glibc
#endif

/// A helper (poppler, the document reader) gets standard input, output and error and nothing
/// else of the process: a descriptor left without close-on-exec (a raw printer's socket, a
/// pipe another thread just made) would stay open as long as the helper runs.
@Suite struct BoundedProcessTests {
  @Test func aHelperGetsNoDescriptorButItsOwnThree() throws {
    var pair: [Int32] = [0, 0]
    #expect(pipe(&pair) == 0)  // no close-on-exec
    // Far above the numbers the helper's own files take (`ls` opens its directory as 3).
    let ends = pair.map { fcntl($0, F_DUPFD, 500) }
    pair.forEach { close($0) }
    defer { ends.forEach { close($0) } }
    #expect(ends.allSatisfy { $0 >= 500 })
    let result = try BoundedProcess.run(
      "/bin/sh", ["-c", "ls /proc/self/fd"], timeout: 10, memoryLimit: 1 << 30)
    #expect(result.succeeded)
    // The shell's own 0, 1 and 2, and the directory `ls` reads.
    let open = String(decoding: result.output, as: UTF8.self).split(separator: "\n").compactMap { Int32($0) }
    #expect(!open.contains(ends[0]) && !open.contains(ends[1]), "the helper holds \(open), the pipe is \(ends)")
    #expect(open.filter { $0 > 2 }.count <= 1, "\(open)")
  }
}
