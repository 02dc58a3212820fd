internal import CCups
public import Foundation
import ReceiptModel

/// Talks to cupsd through libcups: lists queues with their capabilities, streams jobs
/// (cupsCreateJob / cupsStartDocument / cupsWriteRequestData / cupsFinishDocument) and follows
/// them to a final state.
public struct CUPSClient: Sendable {
  /// Uses `server` ("host:port" or a socket path) instead of the default (CUPS_SERVER, client.conf).
  public init(server: String? = nil) {
    if let server { LibCUPS.cupsSetServer(server) }
  }

  /// The server libcups talks to, with its port ("localhost:631"; a socket path as it is).
  public var server: String {
    let host = String(cString: LibCUPS.cupsServer()!)
    return host.hasPrefix("/") ? host : "\(host):\(LibCUPS.ippPort())"
  }

  /// Every queue, with state and capabilities.
  public func queues() throws -> [PrinterQueue] {
    var dests: UnsafeMutablePointer<cups_dest_t>?
    let count = LibCUPS.cupsGetDests2(nil, &dests)
    defer { LibCUPS.cupsFreeDests(count, dests) }
    // cupsd answered but has no queues: libcups reports "No destinations added" (not found).
    if count == 0, LibCUPS.cupsLastError() == IPP_STATUS_ERROR_NOT_FOUND { return [] }
    if count == 0, LibCUPS.cupsLastError().rawValue >= IPP_STATUS_ERROR_BAD_REQUEST.rawValue {
      throw PrintError.serverUnavailable(server: server, reason: LibCUPS.lastErrorMessage)
    }
    var names: [(String, Bool)] = []
    for i in 0..<Int(count) {
      let dest = dests![i]
      if dest.instance == nil { names.append((String(cString: dest.name), dest.is_default != 0)) }
    }
    // libcups also lists printers it found on the network (DNS-SD), which are no queues of this
    // cupsd until something prints to them: they are left out.
    return try names.compactMap { name, isDefault in
      do {
        return try queue(name, isDefault: isDefault)
      } catch PrintError.unknownPrinter {
        return nil
      }
    }
  }

  /// One queue by name: one Get-Printer-Attributes request (the daemon asks this on every poll
  /// of a waiting job); all queues are listed only to name them when it does not exist.
  public func queue(named name: String) throws -> PrinterQueue {
    do {
      let isDefault = LibCUPS.cupsGetDefault2(nil).map { String(cString: $0) == name } ?? false
      return try queue(name, isDefault: isDefault)
    } catch PrintError.unknownPrinter {
      throw PrintError.unknownPrinter(name, known: (try? queues().map(\.name)) ?? [])
    }
  }

  /// The default queue.
  public func defaultQueue() throws -> PrinterQueue {
    guard let queue = try queues().first(where: \.isDefault) else { throw PrintError.noDefaultPrinter }
    return queue
  }

  private func printerURI(_ name: String) -> String { "ipp://localhost/printers/\(name)" }

  private func queue(_ name: String, isDefault: Bool) throws -> PrinterQueue {
    let request = LibCUPS.ippNewRequest(IPP_OP_GET_PRINTER_ATTRIBUTES)
    LibCUPS.ippAddString(request, IPP_TAG_OPERATION, IPP_TAG_URI, "printer-uri", nil, printerURI(name))
    let wanted = [
      "printer-state", "printer-state-reasons", "printer-state-message", "printer-is-accepting-jobs",
      "printer-make-and-model", "device-uri", "document-format-supported", "pwg-raster-document-resolution-supported",
      "printer-resolution-supported", "media-supported",
    ]
    withCStrings(wanted) {
      LibCUPS.ippAddStrings(
        request, IPP_TAG_OPERATION, IPP_TAG_KEYWORD, "requested-attributes", Int32(wanted.count), nil, $0)
    }
    guard let response = LibCUPS.cupsDoRequest(nil, request, "/") else {
      throw PrintError.serverUnavailable(server: server, reason: LibCUPS.lastErrorMessage)
    }
    defer { LibCUPS.ippDelete(response) }
    // An error answer carries no printer-state: say so instead of defaulting to idle.
    let status = LibCUPS.ippGetStatusCode(response)
    if status.rawValue >= IPP_STATUS_ERROR_BAD_REQUEST.rawValue {
      if status == IPP_STATUS_ERROR_NOT_FOUND { throw PrintError.unknownPrinter(name, known: []) }
      throw PrintError.serverUnavailable(server: server, reason: String(cString: LibCUPS.ippErrorString(status)!))
    }
    let formats = strings(response, "document-format-supported")
    var resolutions = self.resolutions(response, "pwg-raster-document-resolution-supported")
    if resolutions.isEmpty { resolutions = self.resolutions(response, "printer-resolution-supported") }
    return PrinterQueue(
      name: name, isDefault: isDefault, state: PrinterState(ipp: integer(response, "printer-state") ?? 3),
      acceptingJobs: integer(response, "printer-is-accepting-jobs") != 0,
      stateReasons: strings(response, "printer-state-reasons").filter { $0 != "none" },
      stateMessage: strings(response, "printer-state-message").first ?? "",
      makeAndModel: strings(response, "printer-make-and-model").first ?? "",
      deviceURI: strings(response, "device-uri").first ?? "", formats: formats, resolutions: resolutions,
      media: strings(response, "media-supported"), path: path(ofQueue: name, formats: formats))
  }

  /// The path from the queue's PPD: cupsd lists every format cups-filters can convert, so the
  /// list alone does not tell. A PWG pass-through filter means IPP Everywhere (PWG raster); a
  /// filter taking CUPS raster means a driver queue; no PPD means a raw queue (ESC/POS).
  private func path(ofQueue name: String, formats: [String]) -> PrintPath {
    var buffer = [CChar](repeating: 0, count: 1024)
    var modified: time_t = 0
    let status = LibCUPS.cupsGetPPD3(nil, name, &modified, &buffer, buffer.count)
    guard status == HTTP_STATUS_OK else { return .escpos }  // no PPD: a raw queue
    let file = String(cString: buffer)
    defer { unlink(file) }
    guard let ppd = try? String(contentsOfFile: file, encoding: .isoLatin1) else {
      return PrinterQueue.path(for: formats)
    }
    let filters = ppd.split(separator: "\n").filter { $0.hasPrefix("*cupsFilter") }
    if filters.contains(where: { $0.contains("\"image/pwg-raster ") }) { return .pwgRaster }
    if filters.contains(where: { $0.contains("\"application/vnd.cups-raster ") }) { return .cupsRaster }
    return PrinterQueue.path(for: formats)
  }

  /// Sends one document as a job; returns the CUPS job id. The job name carries the receipt id.
  public func submit(
    _ document: Data, format: String, to queue: PrinterQueue, jobName: String, options: [String: String] = [:]
  )
    throws -> Int
  {
    guard queue.acceptingJobs else { throw PrintError.printerNotReady(queue.name, reason: "it is not accepting jobs") }
    var numOptions: Int32 = 0
    var cupsOptions: UnsafeMutablePointer<cups_option_t>?
    for (key, value) in options.sorted(by: { $0.key < $1.key }) {
      numOptions = LibCUPS.cupsAddOption(key, value, numOptions, &cupsOptions)
    }
    defer { LibCUPS.cupsFreeOptions(numOptions, cupsOptions) }
    let id = LibCUPS.cupsCreateJob(nil, queue.name, jobName, numOptions, cupsOptions)
    guard id > 0 else { throw PrintError.rejected(LibCUPS.lastErrorMessage) }
    guard LibCUPS.cupsStartDocument(nil, queue.name, id, Self.documentName(jobName), format, 1) == HTTP_STATUS_CONTINUE
    else {
      throw PrintError.rejected(LibCUPS.lastErrorMessage)
    }
    let status = document.withUnsafeBytes { bytes in
      LibCUPS.cupsWriteRequestData(nil, bytes.bindMemory(to: CChar.self).baseAddress, bytes.count)
    }
    guard status == HTTP_STATUS_CONTINUE else {
      throw PrintError.rejected("sending the document failed (HTTP \(status.rawValue))")
    }
    guard LibCUPS.cupsFinishDocument(nil, queue.name).rawValue < IPP_STATUS_REDIRECTION_OTHER_SITE.rawValue else {
      throw PrintError.rejected(LibCUPS.lastErrorMessage)
    }
    return Int(id)
  }

  /// The `document-name` sent with a job's document: its job name with `_` for every space
  /// (and any other whitespace).
  /// Debian 12's cupsd 2.4.2-3+deb12u10 (a security update) crashes with a segmentation fault
  /// when it starts a job whose document name holds a space (seen: `lp` of a file named "a b"
  /// kills it; 2.4.2-3+deb12u9 prints it), and a receipt's job name is "receipt-ID TITLE". The
  /// job name, which the daemon finds its jobs by, is sent as it is (it does not crash cupsd).
  static func documentName(_ jobName: String) -> String {
    String(jobName.map { $0.isWhitespace ? "_" : $0 })
  }

  /// The job's current state and reasons.
  public func status(ofJob id: Int, on queue: String) throws -> JobStatus {
    let request = LibCUPS.ippNewRequest(IPP_OP_GET_JOB_ATTRIBUTES)
    LibCUPS.ippAddString(request, IPP_TAG_OPERATION, IPP_TAG_URI, "printer-uri", nil, printerURI(queue))
    LibCUPS.ippAddInteger(request, IPP_TAG_OPERATION, IPP_TAG_INTEGER, "job-id", Int32(id))
    guard let response = LibCUPS.cupsDoRequest(nil, request, "/") else {
      throw PrintError.serverUnavailable(server: server, reason: LibCUPS.lastErrorMessage)
    }
    defer { LibCUPS.ippDelete(response) }
    return JobStatus(
      id: id, state: JobState(ipp: integer(response, "job-state") ?? 0),
      reasons: strings(response, "job-state-reasons").filter { $0 != "none" },
      message: strings(response, "job-printer-state-message").first ?? "")
  }

  /// Polls a job until it is completed, stopped, canceled or aborted (or `timeout` passes, or
  /// the printer stops: a stopped queue holds jobs forever).
  public func wait(forJob id: Int, on queue: String, timeout: Duration = .seconds(120)) throws -> JobStatus {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while true {
      let status = try self.status(ofJob: id, on: queue)
      if status.isFinal { return status }
      let printer = try self.queue(named: queue)
      if printer.state == .stopped {
        return JobStatus(
          id: id, state: .stopped, reasons: printer.stateReasons,
          message: printer.status.explanation(or: "printer stopped"))
      }
      guard clock.now < deadline else {
        return JobStatus(
          id: id, state: status.state, reasons: status.reasons + ["timed-out"], message: "not finished after \(timeout)"
        )
      }
      Thread.sleep(forTimeInterval: 0.2)
    }
  }

  // MARK: - IPP attribute helpers

  private func strings(_ response: OpaquePointer, _ name: String) -> [String] {
    guard let attr = LibCUPS.ippFindAttribute(response, name, IPP_TAG_ZERO) else { return [] }
    return (0..<LibCUPS.ippGetCount(attr)).compactMap {
      LibCUPS.ippGetString(attr, $0, nil).map { String(cString: $0) }
    }
  }

  private func integer(_ response: OpaquePointer, _ name: String) -> Int? {
    guard let attr = LibCUPS.ippFindAttribute(response, name, IPP_TAG_ZERO) else { return nil }
    if LibCUPS.ippGetValueTag(attr) == IPP_TAG_BOOLEAN { return Int(LibCUPS.ippGetBoolean(attr, 0)) }
    return Int(LibCUPS.ippGetInteger(attr, 0))
  }

  private func resolutions(_ response: OpaquePointer, _ name: String) -> [Int] {
    guard let attr = LibCUPS.ippFindAttribute(response, name, IPP_TAG_RESOLUTION) else { return [] }
    return (0..<LibCUPS.ippGetCount(attr)).map { i in
      var y: Int32 = 0
      var units = IPP_RES_PER_INCH
      let x = LibCUPS.ippGetResolution(attr, i, &y, &units)
      return units == IPP_RES_PER_CM ? (Double(x) * 2.54).clampedInt() : Int(x)
    }
  }
}

/// Passes Swift strings as a C `const char *const *` array.
func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
  let pointers = strings.map { UnsafePointer(strdup($0)) }
  defer { pointers.forEach { free(UnsafeMutablePointer(mutating: $0)) } }
  return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}
