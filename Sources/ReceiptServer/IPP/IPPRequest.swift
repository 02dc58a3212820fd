import Foundation
import ReceiptKit

/// IPP operation codes the printers answer (RFC 8011, PWG 5100.11/5100.13).
enum IPPOperation: Int, CaseIterable {
  case printJob = 0x02
  case validateJob = 0x04
  case createJob = 0x05
  case sendDocument = 0x06
  case cancelJob = 0x08
  case getJobAttributes = 0x09
  case getJobs = 0x0A
  case getPrinterAttributes = 0x0B
  case cancelMyJobs = 0x39
  case closeJob = 0x3B
  case identifyPrinter = 0x3C
}

/// IPP status codes (RFC 8011 appendix B).
enum IPPStatus: Int {
  case ok = 0x0000
  case okIgnoredOrSubstituted = 0x0001
  case badRequest = 0x0400
  case forbidden = 0x0401
  case notAuthorized = 0x0403
  case notPossible = 0x0404
  case notFound = 0x0406
  case requestEntityTooLarge = 0x0409
  case documentFormatNotSupported = 0x040A
  case attributesOrValuesNotSupported = 0x040B
  case uriSchemeNotSupported = 0x040C
  case charsetNotSupported = 0x040D
  case compressionNotSupported = 0x040F
  case documentFormatError = 0x0410
  case internalError = 0x0500
  case operationNotSupported = 0x0501
  case serviceUnavailable = 0x0502
  case versionNotSupported = 0x0503
  case busy = 0x0507
  case multipleDocumentJobsNotSupported = 0x0509
}

/// An IPP request's answer that is not success: its status and a message for people.
struct IPPFailure: Error {
  var status: IPPStatus
  var message: String
  /// Attributes to return in the unsupported-attributes group.
  var unsupported: [IPPAttribute] = []

  init(_ status: IPPStatus, _ message: String, unsupported: [IPPAttribute] = []) {
    self.status = status
    self.message = message
    self.unsupported = unsupported
  }
}

/// A request checked as RFC 8011 section 4.1 asks: a version this printer speaks, a request id,
/// `attributes-charset` then `attributes-natural-language` first, a UTF-8 charset.
struct IPPRequest {
  let message: IPPMessage
  /// The bytes after the attributes (the document of Print-Job and Send-Document).
  let document: IPPDocument

  var operation: Int { message.code }
  var operationAttributes: [IPPAttribute] { message.attributes(in: .operation) }
  var jobAttributes: [IPPAttribute] { message.attributes(in: .job) }

  /// The first operation attribute named `name`.
  func operationAttribute(_ name: String) -> IPPAttribute? { operationAttributes.first { $0.name == name } }

  /// `requesting-user-name`, or "anonymous": what the client says (IPP has no authentication
  /// here), printable — a newline in it would forge lines in the daemon's log.
  var user: String {
    let name = Self.printable(operationAttribute("requesting-user-name")?.string ?? "")
      .trimmingCharacters(in: .whitespaces)
    return name.isEmpty ? "anonymous" : name
  }

  /// A client's text as it may appear in logs, messages and stored names: control characters
  /// (line breaks, escapes, C1 controls, line and paragraph separators) as `?`, at most
  /// `limit` characters.
  static func printable(_ text: String, limit: Int = 255) -> String {
    var result = ""
    for scalar in text.unicodeScalars.prefix(limit) {
      let control =
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028
        || scalar.value == 0x2029
      result.unicodeScalars.append(control ? "?" : scalar)
    }
    return result
  }

  /// The IPP versions answered (1.0 to 2.2).
  static let versions = [10, 11, 20, 21, 22]

  /// Checks the request's frame; throws the status RFC 8011 gives for each fault.
  init(message: IPPMessage, document: IPPDocument) throws {
    self.message = message
    self.document = document
    guard Self.versions.contains(message.version) else {
      throw IPPFailure(
        .versionNotSupported, "IPP version \(message.version / 10).\(message.version % 10) is not supported")
    }
    guard message.requestID > 0 else { throw IPPFailure(.badRequest, "the request-id must be greater than 0") }
    let operation = message.attributes(in: .operation)
    guard operation.count >= 2, operation[0].name == "attributes-charset",
      operation[1].name == "attributes-natural-language"
    else {
      throw IPPFailure(
        .badRequest, "attributes-charset and attributes-natural-language must be the first operation attributes")
    }
    guard case .charset(let charset)? = operation[0].values.first, operation[0].values.count == 1,
      case .naturalLanguage? = operation[1].values.first, operation[1].values.count == 1
    else { throw IPPFailure(.badRequest, "attributes-charset or attributes-natural-language has the wrong syntax") }
    guard ["utf-8", "us-ascii"].contains(charset.lowercased()) else {
      throw IPPFailure(
        .charsetNotSupported, "charset \(charset) is not supported; send utf-8",
        unsupported: [IPPAttribute("attributes-charset", .charset(charset))])
    }
    // One operation group, before any other (a second one is malformed).
    guard message.groups.filter({ $0.tag == .operation }).count == 1, message.groups.first?.tag == .operation else {
      throw IPPFailure(.badRequest, "the request must have exactly one operation attributes group, first")
    }
  }

  /// The job a job operation names: `job-uri`, or `printer-uri` with `job-id`.
  func jobID() throws -> Int64 {
    if let uri = operationAttribute("job-uri")?.string {
      // A job-id is an IPP integer (1…2³¹−1): anything larger names no job (and must not reach
      // arithmetic on sequence numbers).
      guard let last = uri.split(separator: "/").last, let id = Int64(last), (1...Int64(Int32.max)).contains(id) else {
        throw IPPFailure(.badRequest, "job-uri \(Self.printable(uri)) does not end in a job id (1…2147483647)")
      }
      return id
    }
    guard let attribute = operationAttribute("job-id") else {
      throw IPPFailure(.badRequest, "the request needs job-id (with printer-uri) or job-uri")
    }
    guard case .integer(let id)? = attribute.values.first, attribute.values.count == 1, id > 0 else {
      throw IPPFailure(.badRequest, "job-id must be one integer above 0")
    }
    return Int64(id)
  }

  /// The keywords of `requested-attributes` (nil when absent).
  var requestedAttributes: Set<String>? {
    guard let attribute = operationAttribute("requested-attributes") else { return nil }
    return Set(attribute.values.compactMap(\.string))
  }
}
