public import Foundation
import ReceiptMarkup

#if canImport(Glibc)
  import Glibc
#endif

/// The inputs of a batch as the command line names them, one at a time: files (read when a
/// worker takes them) and `-`, standard input as JSON Lines — one order per line, read line by
/// line as workers free up, so a day's file of any length never sits in memory whole.
///
/// Not thread-safe: ``BatchRender`` calls ``next()`` under its lock.
public final class BatchInputs: @unchecked Sendable {
  private var arguments: ArraySlice<String>
  private var stdinLine = 0
  private var readingStdin = false
  private var stdinBuffer: UnsafeMutablePointer<CChar>?
  private var stdinCapacity = 0
  /// Where `-` reads from (standard input unless a test says otherwise), opened at first use.
  private let standardInput: Int32
  private var stdinFile: UnsafeMutablePointer<FILE>?
  /// Standard input could not be read to its end (the batch reports it and fails).
  public private(set) var readError: ReceiptError?

  /// How many inputs there are, nil when standard input is one of them (known at its end).
  public let total: Int?

  public init(_ arguments: [String], standardInput: Int32 = STDIN_FILENO) throws {
    self.arguments = arguments[...]
    self.standardInput = standardInput
    total = arguments.contains("-") ? nil : arguments.count
    var seen: [String: String] = [:]
    for argument in arguments where argument != "-" {
      let name = Self.outputName(argument)
      if let other = seen[name] {
        throw ReceiptError(
          .input, "\(other) and \(argument) would both write \(name).*; render them to different directories")
      }
      seen[name] = argument
    }
  }

  deinit {
    free(stdinBuffer)
    if let stdinFile { fclose(stdinFile) }
  }

  /// The output name of a file: its name without the extension.
  public static func outputName(_ path: String) -> String {
    URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
  }

  /// The next input, nil after the last.
  public func next() -> BatchItem? {
    while true {
      if readingStdin {
        if let line = nextLine() { return line }
        readingStdin = false
      }
      guard let argument = arguments.popFirst() else { return nil }
      if argument == "-" {
        readingStdin = true
        continue
      }
      let isOrder = URL(fileURLWithPath: argument).pathExtension.lowercased() == "json"
      return BatchItem(label: argument, name: Self.outputName(argument), isOrder: isOrder) {
        do {
          let data = try Data(contentsOf: URL(fileURLWithPath: argument))
          if isOrder, data.count > JSONValue.maxBytes {
            throw ReceiptError(
              .data, "\(argument) is \(data.count) bytes; order data is limited to \(JSONValue.maxBytes)")
          }
          return data
        } catch let error as ReceiptError {
          throw error
        } catch {
          throw ReceiptError(.input, "cannot read \(argument): no such file or not readable")
        }
      }
    }
  }

  /// The next non-blank line of standard input as an order (`stdin:N`, written to `00000N.*`).
  private func nextLine() -> BatchItem? {
    while true {
      // A duplicate descriptor: closing the stream leaves the process's standard input open.
      if stdinFile == nil { stdinFile = fdopen(dup(standardInput), "r") }
      guard let file = stdinFile else {
        readError = ReceiptError(.input, "cannot read standard input: \(String(cString: strerror(errno)))")
        return nil
      }
      errno = 0
      let count = getline(&stdinBuffer, &stdinCapacity, file)
      guard count >= 0, let buffer = stdinBuffer else {
        if errno != 0 {
          readError = ReceiptError(.input, "cannot read standard input: \(String(cString: strerror(errno)))")
        }
        return nil
      }
      stdinLine += 1
      var data = Data(bytes: buffer, count: count)
      while let last = data.last, last == 0x0A || last == 0x0D { data.removeLast() }
      guard data.contains(where: { ![0x20, 0x09].contains($0) }) else { continue }
      let (line, label) = (stdinLine, "stdin:\(stdinLine)")
      return BatchItem(label: label, name: String(format: "%06d", line), isOrder: true) { [data] in
        guard data.count <= JSONValue.maxBytes else {
          throw ReceiptError(.data, "\(label) is \(data.count) bytes; order data is limited to \(JSONValue.maxBytes)")
        }
        return data
      }
    }
  }
}
