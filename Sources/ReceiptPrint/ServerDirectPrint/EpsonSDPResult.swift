public import Foundation

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// A Server Direct Print result (`ConnectionType=SetResponse`, its `ResponseFile`): the
/// `<PrintResponseInfo>` document the printer posts after printing (Epson Server Direct Print
/// User's Manual, "Request (Printing Result)"): per `<ePOSPrint>`, its `printjobid` and the
/// ePOS-Print `<response success code status>`; with version 3.00, whether the printer took the
/// XML at all (`<ServerDirectPrint><Response Success>`). Read with the DTD and entities refused.
public struct EpsonSDPResult: Sendable, Equatable {
  /// One print request's result.
  public struct Print: Sendable, Equatable {
    public var jobID: String
    public var success: Bool
    /// `EPTR_REC_EMPTY`, `EPTR_COVER_OPEN`, `SchemaError`, … (empty on success).
    public var code: String
    /// The ePOS-Print status bits (``printerStatus``).
    public var status: UInt32

    /// A result.
    public init(jobID: String, success: Bool, code: String, status: UInt32) {
      (self.jobID, self.success, self.code, self.status) = (jobID, success, code, status)
    }
  }

  /// The results, in order.
  public var prints: [Print]
  /// False when the printer refused the XML it fetched (version 3.00); its summary then.
  public var accepted: Bool
  public var error: String

  /// Reads a `ResponseFile`; nil when it is not such a document.
  public init?(xml: Data) {
    guard xml.count <= 1 << 20, let text = String(data: xml, encoding: .utf8), !text.contains("<!") else {
      return nil
    }
    let reader = Reader()
    let parser = XMLParser(data: Data(text.utf8))
    parser.shouldResolveExternalEntities = false
    parser.delegate = reader
    guard parser.parse(), reader.root == "PrintResponseInfo" else { return nil }
    prints = reader.prints
    accepted = reader.accepted
    error = reader.error
  }

  /// What the status bits say, in CUPS/IPP terms (Epson ePOS-Print API, the response's
  /// `status`: `ASB_OFF_LINE` 0x8, `ASB_COVER_OPEN` 0x20, `ASB_MECHANICAL_ERR` 0x400,
  /// `ASB_AUTOCUTTER_ERR` 0x800, `ASB_UNRECOVER_ERR` 0x2000, `ASB_AUTORECOVER_ERR` 0x4000,
  /// `ASB_RECEIPT_NEAR_END` 0x20000, `ASB_RECEIPT_END` 0x80000).
  public static func printerStatus(bits: UInt32, code: String = "") -> PrinterStatus {
    var reasons: [PrinterStateReason] = []
    var problems: [String] = []
    if bits & 0x80000 != 0 || code == "EPTR_REC_EMPTY" {
      reasons.append("media-empty")
      problems.append("out of paper")
    } else if bits & 0x20000 != 0 {
      reasons.append("media-low")
    }
    if bits & 0x20 != 0 || code == "EPTR_COVER_OPEN" {
      reasons.append("cover-open")
      problems.append("cover open")
    }
    if bits & (0x400 | 0x800 | 0x2000 | 0x4000) != 0
      || ["EPTR_CUTTER", "EPTR_MECHANICAL", "EPTR_UNRECOVERABLE", "EPTR_AUTOMATICAL"].contains(code)
    {
      reasons.append("other")
      problems.append(bits & 0x800 != 0 || code == "EPTR_CUTTER" ? "autocutter error" : "printer error")
    }
    if bits & 0x8 != 0, problems.isEmpty {
      reasons.append("offline-report")
      problems.append("offline")
    }
    let stopped = !problems.isEmpty
    return PrinterStatus(
      state: stopped ? .stopped : .idle, reasons: reasons,
      message: stopped ? problems.joined(separator: ", ") : (reasons.contains("media-low") ? "paper nearly out" : ""))
  }

  /// Collects the elements a result has (any namespace).
  private final class Reader: NSObject, XMLParserDelegate {
    var root: String?
    var prints: [Print] = []
    var accepted = true
    var error = ""
    private var jobID = ""
    private var text = ""
    private var path: [String] = []

    func parser(
      _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
      attributes: [String: String] = [:]
    ) {
      if root == nil { root = name }
      path.append(name)
      text = ""
      switch name {
      case "ePOSPrint": jobID = ""
      case "Response" where path.contains("ServerDirectPrint"):
        accepted = attributes["Success"]?.lowercased() != "false"
      case "response" where path.contains("PrintResponse"):
        prints.append(
          Print(
            jobID: jobID, success: ["true", "1"].contains(attributes["success"]?.lowercased() ?? ""),
            code: attributes["code"] ?? "", status: UInt32(attributes["status"] ?? "") ?? 0))
      default: break
      }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
      let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
      if name == "printjobid" { jobID = value }
      if name == "ErrorSummary" || name == "ErrorDetail" { error += (error.isEmpty ? "" : ": ") + value }
      path.removeLast()
      text = ""
    }
  }
}
