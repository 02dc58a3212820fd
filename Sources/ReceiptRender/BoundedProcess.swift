import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A helper program run with a time and a memory bound (`ulimit -v` in the shell that execs it),
/// its standard output and error collected. Killed (SIGKILL: children inherit a signal mask with
/// SIGTERM blocked) when the time is up.
enum BoundedProcess {
  struct Result {
    var status: Int32
    var output: Data
    var error: Data
    var timedOut: Bool
  }

  static func run(_ path: String, _ arguments: [String], timeout: TimeInterval, memoryLimit: Int) throws -> Result {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    // `exec` keeps the pid: the kill reaches the tool itself.
    process.arguments = ["-c", "ulimit -v \(memoryLimit / 1024) && exec \"$0\" \"$@\"", path] + arguments
    process.environment = ["PATH": "/usr/bin:/bin", "LC_ALL": "C"]
    let output = Pipe()
    let error = Pipe()
    process.standardOutput = output
    process.standardError = error
    process.standardInput = FileHandle.nullDevice
    do {
      try process.run()
    } catch {
      throw RenderError.document("cannot run \(path): \(error.localizedDescription)")
    }
    let killed = Killed()
    let deadline = DispatchWorkItem {
      killed.value = true
      kill(process.processIdentifier, SIGKILL)
    }
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: deadline)
    let errors = Collected()
    let group = DispatchGroup()
    DispatchQueue.global().async(group: group) { errors.data = error.fileHandleForReading.readDataToEndOfFile() }
    let out = output.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    deadline.cancel()
    return Result(status: process.terminationStatus, output: out, error: errors.data, timedOut: killed.value)
  }

  /// Set from the timer's thread, read after the process ended.
  private final class Killed: @unchecked Sendable {  // written before waitUntilExit returns, read after
    var value = false
  }
  private final class Collected: @unchecked Sendable {  // written by one thread, read after group.wait()
    var data = Data()
  }
}

/// A private file (0600) in the temporary directory holding `data`, removed by ``remove()``.
struct TemporaryFile {
  let path: String

  init(_ data: Data, suffix: String) throws {
    let directory = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
    var template = Array("\(directory)/receipt-XXXXXX\(suffix)".utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { mkstemps($0.baseAddress!, Int32(suffix.utf8.count)) }
    guard fd >= 0 else { throw RenderError.output("cannot create a temporary file in \(directory)") }
    path = String(cString: template)
    let written = data.withUnsafeBytes { raw in
      var offset = 0
      while offset < raw.count {
        let n = write(fd, raw.baseAddress! + offset, raw.count - offset)
        if n <= 0 { return false }
        offset += n
      }
      return true
    }
    close(fd)
    guard written else {
      unlink(path)
      throw RenderError.output("cannot write a temporary file in \(directory)")
    }
  }

  func remove() { unlink(path) }
}
