import Foundation
import ReceiptLayout
import ReceiptModel
import ReceiptRender

#if canImport(Glibc)
  import Glibc
#endif

/// Reads a document in a process of its own — the program itself, run as
/// `PROGRAM read-document …` — so that a document that crashes a reader (libcups' raster reader,
/// the image decoders, poppler), loops, or asks for gigabytes ends that process and fails its own
/// job, never the daemon: a 627-byte PDF once put the daemon into a crash loop, three outages
/// before its job went `dead`.
///
/// The process gets a budget for the whole document (``DocumentPages/timeLimit`` of wall time,
/// the same of CPU time, and ``DocumentPages/memoryLimit`` of address space, for it and the
/// poppler processes it runs), runs in a process group of its own (the time limit and a stop end
/// the whole group with SIGKILL: ``BoundedProcess``), and hands its pages back in a private
/// file (``DocumentPageFile``), read as untrusted as the document itself.
enum ContainedDocumentReader {
  /// Reads `data` as `format` with the program at `helper`.
  static func read(_ data: Data, format: DocumentFormat, options: DocumentReadOptions, helper: String) throws
    -> [DocumentPage]
  {
    let input = try TemporaryFile(data, suffix: ".document")
    defer { input.remove() }
    let output = try TemporaryFile(Data(), suffix: ".pages")
    defer { output.remove() }
    var arguments = [
      "read-document", "--format", format.rawValue, "--resolution", "\(options.resolution)",
      "--paper-width", "\(options.paperWidth)", "--scaling", options.scaling.rawValue,
    ]
    if let ranges = options.pageRanges {
      arguments += ["--pages", ranges.map { "\($0.lowerBound)-\($0.upperBound)" }.joined(separator: ",")]
    }
    arguments += [input.path, output.path]
    let seconds = DocumentPages.timeLimit
    let result: BoundedProcess.Result
    do {
      result = try BoundedProcess.run(
        helper, arguments, timeout: seconds + 1, memoryLimit: DocumentPages.memoryLimit,
        cpuSeconds: Int(seconds), ownGroup: true, shouldStop: options.shouldStop)
    } catch let error as RenderError {
      throw PrintError.document("\(error)")
    }
    if result.stopped { throw PrintError.abandoned("reading the document was given up for the daemon's stop") }
    if result.timedOut {
      throw PrintError.document("reading the document took longer than \(Int(seconds)) s (the limit for one document)")
    }
    if let signal = result.signal {
      throw PrintError.document(
        "the document's reader ended with \(Self.describe(signal)): the document cannot be printed (one document "
          + "may take \(DocumentPages.memoryLimit >> 20) MiB and \(Int(seconds)) s to read)")
    }
    guard result.succeeded else {
      // The reader's own message, one line (`receipt: error: …`): the document's fault.
      let said = String(decoding: result.error, as: UTF8.self)
      let line = said.split(separator: "\n").last.map(String.init) ?? ""
      let message = line.hasPrefix("receipt: error: ") ? String(line.dropFirst("receipt: error: ".count)) : line
      throw PrintError.document(message.isEmpty ? "the document cannot be read (exit \(result.status))" : message)
    }
    let fd = open(output.path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw PrintError.document("the document reader left no pages") }
    defer { close(fd) }
    return try DocumentPageFile.read(fd)
  }

  /// A signal that ended the reader, in words.
  static func describe(_ signal: Int32) -> String {
    switch signal {
    case SIGKILL: "SIGKILL (over the memory limit)"
    case SIGXCPU: "SIGXCPU (over the time limit)"
    case SIGSEGV, SIGBUS: "a crash (signal \(signal))"
    case SIGILL, SIGTRAP: "a failed check (signal \(signal))"
    case SIGABRT: "an abort (SIGABRT)"
    default: "signal \(signal)"
    }
  }
}
