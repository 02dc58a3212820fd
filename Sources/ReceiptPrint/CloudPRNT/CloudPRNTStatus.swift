public import Foundation

/// What a CloudPRNT poll says of its printer, in CUPS/IPP terms.
///
/// `statusCode` is the one field every poll carries (Star CloudPRNT Protocol Guide, "Polling the
/// server (POST) — JSON Request": all others are optional) — three digits and a description,
/// `2xx` online (`211` paper low), `4xx` a printer error (`410` out of paper, `411` paper jam,
/// `42x` cover open), `5xx` a client error ("Printer Status Codes"). `status`, when sent, is the
/// printer's Star automatic status (ASB) in hex; its bytes add what the code does not say, read
/// as ``StarStatus`` reads them (cover open, offline, errors, paper end and near end).
public struct CloudPRNTStatus: Sendable, Equatable {
  /// The three digits of `statusCode` (0 when it has none).
  public var code: Int
  /// The description after the digits (`OK`, `Out of paper`), for logs.
  public var text: String
  /// The ASB bytes of `status` (empty when it was not sent or is not hex).
  public var asb: [UInt8]

  /// Reads a poll's `statusCode` (URL-encoded or not: `200%20OK`) and `status`.
  public init(statusCode: String, status: String? = nil) {
    let decoded = (statusCode.removingPercentEncoding ?? statusCode).trimmingCharacters(in: .whitespaces)
    let digits = decoded.prefix { $0.isASCII && $0.isNumber }
    code = digits.count >= 3 ? Int(digits.prefix(4)) ?? 0 : 0
    text = String(decoded.dropFirst(digits.count)).trimmingCharacters(in: .whitespaces)
    asb = status.map(Self.hexBytes) ?? []
  }

  /// Hex bytes written as pairs (`2386000000`) or separated (`23 86 00 00`); empty when not hex
  /// or longer than an ASB (at most 64 bytes are read).
  static func hexBytes(_ text: String) -> [UInt8] {
    let utf8 = Array(text.utf8.prefix(256))
    let separated = utf8.contains { $0 == 0x20 || $0 == 0x09 }
    let tokens: [ArraySlice<UInt8>] =
      separated
      ? utf8.split(whereSeparator: { $0 == 0x20 || $0 == 0x09 })
      : stride(from: 0, to: utf8.count, by: 2).map { utf8[$0..<min($0 + 2, utf8.count)] }
    let bytes = tokens.compactMap { $0.count <= 2 ? UInt8(String(decoding: $0, as: UTF8.self), radix: 16) : nil }
    return bytes.count == tokens.count && bytes.count <= 64 ? bytes : []
  }

  /// Whether the printer says it can print: a `2xx` code, and no paper end, open cover or error
  /// in its ASB.
  public var canPrint: Bool { printerStatus.state != .stopped }

  /// The status: stopped with `media-empty`, `media-jam`, `cover-open`, `other` (a mechanical,
  /// cutter or unrecoverable error, a hot head) or `offline-report`; idle otherwise, with
  /// `media-low` when the roll is nearly out.
  public var printerStatus: PrinterStatus {
    var reasons: [PrinterStateReason] = []
    var problems: [String] = []
    func add(_ reason: PrinterStateReason, _ problem: String?) {
      guard !reasons.contains(reason) else { return }
      reasons.append(reason)
      if let problem { problems.append(problem) }
    }
    let sensors = StarStatus(sensorsOf: asb)
    if code == 410 || sensors.paperEnd { add("media-empty", "out of paper") }
    if code == 411 { add("media-jam", "paper jam") }
    if code / 10 == 42 || sensors.coverOpen { add("cover-open", "cover open") }
    if sensors.mechanicalError || sensors.cutterError || sensors.unrecoverableError || sensors.headTooHot {
      add(
        "other", sensors.cutterError ? "autocutter error" : sensors.headTooHot ? "print head too hot" : "printer error")
    }
    if code / 100 == 4, problems.isEmpty { add("other", text.isEmpty ? "printer error \(code)" : text) }
    if sensors.offline, problems.isEmpty { add("offline-report", "offline") }
    let low = code == 211 || code == 210 || sensors.paperNearEnd
    if low, !reasons.contains("media-empty") { add("media-low", nil) }
    let stopped = !problems.isEmpty
    return PrinterStatus(
      state: stopped ? .stopped : .idle, reasons: reasons,
      message: stopped ? problems.joined(separator: ", ") : (low ? "paper nearly out" : ""))
  }
}

extension PolledConfirmation {
  /// A CloudPRNT job confirmation's `code` (`200 OK`, `510 …`): printed (2xx), refused for its
  /// media (51x: printing it again cannot help), or another failure (Star CloudPRNT Protocol
  /// Guide, "Print job confirmation (DELETE)" and "Printer Status Codes").
  public init(cloudPRNTCode code: String) {
    let status = CloudPRNTStatus(statusCode: code)
    let described = status.text.isEmpty ? "\(status.code)" : "\(status.code) \(status.text)"
    switch status.code / 100 {
    case 2: self = .printed
    case 5 where status.code / 10 == 51: self = .refused(described)
    default: self = .failed(status.code == 0 ? "no code" : described)
    }
  }
}
