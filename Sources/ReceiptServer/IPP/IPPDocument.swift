import Foundation
import ReceiptKit
@_spi(Internals) import ReceiptModel

#if canImport(Glibc)
  import Glibc
#endif

/// The document of an IPP request (Print-Job, Send-Document) as it arrived: written to an
/// unnamed temporary file while the request is read, so a document is never held whole in
/// memory while a client sends it (30 clients each holding back the last byte of 32 MiB once
/// held 1.1 GB). It is read whole only to be stored, under ``IPPDocument/storing`` (a bound on
/// how many are read at once).
// @unchecked: the descriptor and count never change after init, and pread is thread-safe.
final class IPPDocument: @unchecked Sendable {
  private enum Storage {
    case memory(Data)
    /// An unnamed file (unlinked at once: nothing is left behind by a crash).
    case file(Int32)
  }

  private let storage: Storage
  /// Bytes in the document.
  let count: Int

  /// A document already in memory (the fuzzer, tests, and requests whose body came whole).
  init(_ data: Data) {
    storage = .memory(data)
    count = data.count
  }

  private init(descriptor: Int32, count: Int) {
    storage = .file(descriptor)
    self.count = count
  }

  deinit {
    if case .file(let fd) = storage { close(fd) }
  }

  var isEmpty: Bool { count == 0 }

  /// The first `length` bytes (what the format is sniffed from).
  func prefix(_ length: Int) throws -> Data {
    try read(count: min(length, count))
  }

  /// The whole document.
  func data() throws -> Data { try read(count: count) }

  private func read(count wanted: Int) throws -> Data {
    switch storage {
    case .memory(let data): return data.prefix(wanted)
    case .file(let fd):
      var data = Data(count: wanted)
      let done = data.withUnsafeMutableBytes { buffer -> Bool in
        var offset = 0
        while offset < wanted {
          let n = pread(fd, buffer.baseAddress! + offset, wanted - offset, off_t(offset))
          if n < 0, errno == EINTR { continue }
          guard n > 0 else { return false }
          offset += n
        }
        return true
      }
      guard done else { throw IPPFailure(.internalError, "the spooled document cannot be read back") }
      return data
    }
  }

  /// How many documents may be read into memory to be stored at once: each is up to
  /// `ippMaxDocumentBytes` (32 MiB by default).
  static let storing = AsyncSemaphore(2)

  /// Writes a document as its pieces arrive, refusing more than `limit` bytes.
  final class Spool {
    private let fd: Int32
    private(set) var count = 0
    private let limit: Int
    private var handedOver = false

    /// Linux's `O_TMPFILE` (`__O_TMPFILE | O_DIRECTORY`; a macro Swift does not import).
    private static let unnamedFile: Int32 = 0o20_000_000 | O_DIRECTORY

    /// A spool in `directory` (the temporary directory).
    init(directory: String, limit: Int) throws {
      self.limit = limit
      var fd = open(directory, Self.unnamedFile | O_RDWR | O_CLOEXEC, 0o600)
      if fd < 0 {
        // A file system without O_TMPFILE: a named file, unlinked at once.
        var template = Array("\(directory)/receipt-ipp-XXXXXX".utf8CString)
        fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        if fd >= 0 { unlink(String(cString: template)) }
      }
      guard fd >= 0 else {
        throw IPPFailure(
          .internalError, "cannot spool the document in \(directory): \(String(cString: strerror(errno)))")
      }
      self.fd = fd
    }

    deinit {
      if !handedOver { close(fd) }
    }

    /// Appends bytes; false when the document would pass the limit (nothing is written then).
    func append(_ bytes: UnsafeRawBufferPointer) throws -> Bool {
      guard count + bytes.count <= limit else { return false }
      var offset = 0
      while offset < bytes.count {
        let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
        if n < 0, errno == EINTR { continue }
        guard n > 0 else {
          throw IPPFailure(.internalError, "cannot spool the document: \(String(cString: strerror(errno)))")
        }
        offset += n
      }
      count += bytes.count
      return true
    }

    /// The spooled document (the spool is done).
    func document() -> IPPDocument {
      handedOver = true
      return IPPDocument(descriptor: fd, count: count)
    }
  }
}

/// A counting semaphore for async code: ``wait()`` suspends (never blocks a thread) until one of
/// `count` permits is free; ``signal()`` gives one back, resuming the oldest waiter.
final class AsyncSemaphore: Sendable {
  private struct State {
    var free: Int
    var waiters: [CheckedContinuation<Void, Never>] = []
  }

  private let state: Locked<State>

  init(_ count: Int) {
    state = Locked(State(free: count))
  }

  func wait() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let now = state.withLock { state -> Bool in
        if state.free > 0 {
          state.free -= 1
          return true
        }
        state.waiters.append(continuation)
        return false
      }
      if now { continuation.resume() }
    }
  }

  func signal() {
    let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
      if state.waiters.isEmpty {
        state.free += 1
        return nil
      }
      return state.waiters.removeFirst()
    }
    next?.resume()
  }

  /// Runs `body` holding a permit.
  func withPermit<T>(_ body: () async throws -> T) async rethrows -> T {
    await wait()
    defer { signal() }
    return try await body()
  }
}
