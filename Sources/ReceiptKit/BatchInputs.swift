public import Foundation
import ReceiptMarkup

#if canImport(Glibc)
  import Glibc
#endif

/// The inputs of a batch as the command line names them, one at a time: files (read when a
/// worker takes them) and `-`, standard input as JSON Lines — one order per line, read line by
/// line as workers free up, so a day's file of any length never sits in memory whole.
///
/// Its state is its lock's: ``next()`` may be called from any thread (``BatchRender``'s workers
/// call it under their own lock too, so it is never contended).
public final class BatchInputs: @unchecked Sendable {
  private let lock = NSLock()
  private var arguments: ArraySlice<String>
  private var stdinLine = 0
  private var readingStdin = false
  /// Where `-` reads from (standard input unless a test says otherwise).
  private let standardInput: Int32
  /// Bytes read from standard input and not yet handed out as lines.
  private var pending: [UInt8] = []
  private var pendingStart = 0
  private var stdinEnded = false
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

  /// The output name of a file: its name without the extension.
  public static func outputName(_ path: String) -> String {
    URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
  }

  /// The next input, nil after the last.
  public func next() -> BatchItem? {
    lock.withLock { unlockedNext() }
  }

  private func unlockedNext() -> BatchItem? {
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
        // Bounded before it is read: a file's size is checked first, and a stream is read no
        // further than one byte past the limit.
        let limit = isOrder ? JSONValue.maxBytes : Self.maxInputBytes
        guard let (data, size) = Self.read(argument, limit: limit) else {
          throw ReceiptError(.input, "cannot read \(argument): no such file or not readable")
        }
        guard size <= limit else {
          let what = isOrder ? "order data is" : "an input is"
          throw ReceiptError(.data, "\(argument) is \(size) bytes or more; \(what) limited to \(limit)")
        }
        return data
      }
    }
  }

  /// Most bytes of an input that is not an order (a text file).
  static let maxInputBytes = 64 << 20

  /// The file at `path`, at most `limit` bytes (more: its size, or `limit + 1` for a stream);
  /// nil when it cannot be opened or read.
  static func read(_ path: String, limit: Int) -> (Data, size: Int)? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0, info.st_mode & S_IFMT != S_IFDIR else { return nil }
    if info.st_mode & S_IFMT == S_IFREG, Int(info.st_size) > limit { return (Data(), Int(info.st_size)) }
    var data = Data()
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while data.count <= limit {
      let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
      if n < 0, errno == EINTR { continue }
      guard n >= 0 else { return nil }
      if n == 0 { break }
      data.append(contentsOf: chunk[0..<min(n, limit + 1 - data.count)])
    }
    return (data, data.count)
  }

  /// The next non-blank line of standard input as an order (`stdin:N`, written to `00000N.*`).
  /// A line longer than an order may be is not kept: its bytes are counted and skipped, and it
  /// fails alone (a 200 MB line once took 434 MB before it was refused).
  private func nextLine() -> BatchItem? {
    while true {
      guard let (line, length) = readLine() else { return nil }
      stdinLine += 1
      var data = line
      while let last = data.last, last == 0x0A || last == 0x0D { data.removeLast() }
      // Over the limit: refused without having been kept (its length is all that was counted).
      let size = line.isEmpty && length > 0 ? length : data.count
      guard size > JSONValue.maxBytes || data.contains(where: { ![0x20, 0x09].contains($0) }) else { continue }
      let (number, label) = (stdinLine, "stdin:\(stdinLine)")
      return BatchItem(label: label, name: String(format: "%06d", number), isOrder: true) { [data] in
        guard size <= JSONValue.maxBytes else {
          throw ReceiptError(.data, "\(label) is \(size) bytes; order data is limited to \(JSONValue.maxBytes)")
        }
        return data
      }
    }
  }

  /// One line of standard input (its line break included) and its length in bytes without the
  /// line break; a line over the order limit comes back empty. Nil at the end (or a read error).
  private func readLine() -> (Data, Int)? {
    var line = Data()
    var length = 0
    while true {
      if let newline = pending[pendingStart...].firstIndex(of: 0x0A) {
        let part = pending[pendingStart...newline]
        length += part.count
        if length <= JSONValue.maxBytes + 2 { line.append(contentsOf: part) }
        pendingStart = newline + 1
        return (length > JSONValue.maxBytes + 2 ? Data() : line, length - 1)  // without its line break
      }
      let rest = pending[pendingStart...]
      length += rest.count
      if length <= JSONValue.maxBytes + 2 { line.append(contentsOf: rest) } else { line = Data() }
      pending.removeAll(keepingCapacity: true)
      pendingStart = 0
      guard !stdinEnded, fill() else {
        return length == 0 ? nil : (length > JSONValue.maxBytes + 2 ? Data() : line, length)
      }
    }
  }

  /// Reads the next piece of standard input into `pending`; false at its end or on an error.
  private func fill() -> Bool {
    pending = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let n = pending.withUnsafeMutableBytes { Glibc.read(standardInput, $0.baseAddress, $0.count) }
      if n < 0, errno == EINTR { continue }
      if n < 0 {
        readError = ReceiptError(.input, "cannot read standard input: \(String(cString: strerror(errno)))")
      }
      guard n > 0 else {
        pending = []
        stdinEnded = true
        return false
      }
      pending.removeSubrange(n...)
      return true
    }
  }
}
