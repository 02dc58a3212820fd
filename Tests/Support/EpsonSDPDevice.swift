import Crypto
import Foundation

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// An Epson printer with Server Direct Print, simulated from Epson's Server Direct Print User's
/// Manual ("Request and Response") and ePOS-Print XML User's Manual ("XML Reference"): it
/// `POST`s `ConnectionType=GetRequest&ID=…` as form data, authenticating with HTTP Digest
/// (RFC 7616, MD5, `qop=auth`, as the manual's "Digest Access Authentication") when challenged;
/// prints the `<PrintRequestInfo>` it is answered — each `<ePOSPrint>`'s `<epos-print>`:
/// `<image>` rows (1 bit per dot, highest bit first, rows padded to bytes, base64) onto the
/// page, `<cut>` ends the page, `<pulse>` kicks a drawer; any other element is refused and the
/// request fails with `SchemaError` — and `POST`s `ConnectionType=SetResponse` with a
/// `<PrintResponseInfo>` per request (`success`, `code`, `status` bits: `ASB_PRINT_SUCCESS`
/// 0x2, `ASB_RECEIPT_END` 0x80000 …).
public final class EpsonSDPDevice: @unchecked Sendable {
  public struct Page: Sendable {
    public var width: Int
    public var rows: [[Bool]]
    public var cut: Bool
    public var drawers: [String]
  }

  let id: String
  let user: String
  let password: String
  let port: UInt16
  private let lock = NSLock()
  private var printed: [Page] = []
  private var paperOut = false
  private var vanishes = 0
  private var log: [String] = []
  private var jobIDs: [String] = []
  private var nonce: String?

  public init(id: String, credentials: String, port: UInt16) {
    self.id = id
    let parts = credentials.split(separator: ":", maxSplits: 1).map(String.init)
    user = parts[0]
    password = parts.count > 1 ? parts[1] : ""
    self.port = port
  }

  /// The pages it printed.
  public var pages: [Page] { lock.withLock { printed } }
  /// The print job IDs it was sent, in order.
  public var fetchedJobIDs: [String] { lock.withLock { jobIDs } }
  /// What went wrong (refused elements, unexpected answers).
  public var errors: [String] { lock.withLock { log } }
  /// Out of paper: it prints nothing and reports `EPTR_REC_EMPTY`.
  public func outOfPaper(_ out: Bool) { lock.withLock { paperOut = out } }
  /// The next `count` jobs it fetches are never reported (it loses power).
  public func vanish(next count: Int) { lock.withLock { vanishes = count } }

  /// One GetRequest, and the printing and SetResponse of what it is answered; the HTTP status.
  @discardableResult
  public func pollOnce(password override: String? = nil) -> Int {
    guard let answer = post(["ConnectionType": "GetRequest", "ID": id], override) else { return 0 }
    guard answer.status == 200 else { return answer.status }
    guard !answer.body.isEmpty else { return 200 }
    let requests = Self.parse(answer.body)
    guard !requests.isEmpty else {
      note("an answer that is not a PrintRequestInfo")
      return 200
    }
    let vanish = lock.withLock { () -> Bool in
      jobIDs += requests.map(\.jobID)
      defer { vanishes = max(0, vanishes - 1) }
      return vanishes > 0
    }
    if vanish { return 200 }
    var results: [String] = []
    for request in requests {
      let out = lock.withLock { paperOut }
      if out {
        results.append(Self.result(request.jobID, success: false, code: "EPTR_REC_EMPTY", status: 0x0008_0008))
      } else if let refused = request.refused {
        note("refused \(refused)")
        results.append(Self.result(request.jobID, success: false, code: "SchemaError", status: 0x2))
      } else {
        lock.withLock { printed += request.pages }
        results.append(Self.result(request.jobID, success: true, code: "", status: 251_658_262))
      }
    }
    let file =
      #"<?xml version="1.0" encoding="utf-8"?><PrintResponseInfo Version="2.00">"# + results.joined()
      + "</PrintResponseInfo>"
    _ = post(["ConnectionType": "SetResponse", "ID": id, "ResponseFile": file], override)
    return 200
  }

  static func result(_ jobID: String, success: Bool, code: String, status: UInt32) -> String {
    #"<ePOSPrint><Parameter><devid>local_printer</devid><printjobid>\#(jobID)</printjobid></Parameter>"#
      + #"<PrintResponse><response xmlns="http://www.epson-pos.com/schemas/2011/03/epos-print" success="\#(success)" code="\#(code)" status="\#(status)" battery="0"/></PrintResponse></ePOSPrint>"#
  }

  /// One print request of a PrintRequestInfo, as printed.
  struct Request {
    var jobID = ""
    var pages: [Page] = []
    var refused: String?
  }

  /// Reads a `<PrintRequestInfo>`: its print requests and their pages.
  static func parse(_ xml: Data) -> [Request] {
    let reader = Reader()
    let parser = XMLParser(data: xml)
    parser.shouldResolveExternalEntities = false
    parser.delegate = reader
    guard parser.parse(), reader.root == "PrintRequestInfo" else { return [] }
    return reader.requests
  }

  private final class Reader: NSObject, XMLParserDelegate {
    var root: String?
    var requests: [Request] = []
    private var text = ""
    private var image: (width: Int, height: Int)?
    private var page: Page?
    private var inPrintData = false

    func parser(
      _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
      attributes: [String: String] = [:]
    ) {
      if root == nil { root = name }
      text = ""
      switch name {
      case "ePOSPrint": requests.append(Request())
      case "PrintData": inPrintData = true
      case "epos-print" where inPrintData: break
      case "image" where inPrintData:
        guard let width = Int(attributes["width"] ?? ""), let height = Int(attributes["height"] ?? ""),
          (attributes["mode"] ?? "mono") == "mono", (attributes["color"] ?? "color_1") == "color_1"
        else { return refuse("image \(attributes)") }
        image = (width, height)
      case "cut" where inPrintData:
        guard ["feed", "no_feed", nil].contains(attributes["type"]) else { return refuse("cut \(attributes)") }
        var done = page ?? Page(width: 0, rows: [], cut: false, drawers: [])
        done.cut = true
        requests[requests.count - 1].pages.append(done)
        page = nil
      case "pulse" where inPrintData:
        if page == nil, !requests.isEmpty {
          page = requests[requests.count - 1].pages.popLast() ?? Page(width: 0, rows: [], cut: false, drawers: [])
        }
        page?.drawers.append(attributes["drawer"] ?? "drawer_1")
        if let kicked = page, kicked.cut {
          requests[requests.count - 1].pages.append(kicked)
          page = nil
        }
      default:
        if inPrintData { refuse(name) }
      }
    }

    func refuse(_ what: String) {
      if !requests.isEmpty, requests[requests.count - 1].refused == nil { requests[requests.count - 1].refused = what }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
      switch name {
      case "printjobid": if !requests.isEmpty { requests[requests.count - 1].jobID = text }
      case "PrintData":
        inPrintData = false
        if let open = page, !requests.isEmpty { requests[requests.count - 1].pages.append(open) }
        page = nil
      case "image":
        guard let (width, height) = image,
          let data = Data(base64Encoded: text.filter { !$0.isWhitespace }), data.count == (width + 7) / 8 * height
        else {
          refuse("image data")
          break
        }
        let bytesPerRow = (width + 7) / 8
        var current = page ?? Page(width: width, rows: [], cut: false, drawers: [])
        current.width = max(current.width, width)
        for row in 0..<height {
          current.rows.append(
            (0..<width).map { x in data[data.startIndex + row * bytesPerRow + x / 8] & (0x80 >> (x % 8)) != 0 })
        }
        page = current
        image = nil
      default: break
      }
      text = ""
    }
  }

  private func note(_ message: String) { lock.withLock { log.append(message) } }

  private struct Answer {
    var status: Int
    var headers: [String: String]
    var body: Data
  }

  private func post(_ fields: [String: String], _ override: String?) -> Answer? {
    let body = fields.sorted { $0.key < $1.key }.map { "\($0.key)=\(Self.formEscaped($0.value))" }.joined(
      separator: "&")
    let password = override ?? self.password
    var answer = send(body, authorization: lock.withLock { nonce }.map { digest($0, password) })
    if answer?.status == 401, let challenge = answer?.headers["www-authenticate"],
      let range = challenge.range(of: "Digest ")
    {
      let fields = Self.fields(String(challenge[range.upperBound...]))
      if let fresh = fields["nonce"] {
        lock.withLock { nonce = fresh }
        answer = send(body, authorization: digest(fresh, password))
      }
    }
    return answer
  }

  private func digest(_ nonce: String, _ password: String) -> String {
    let uri = "/epson-sdp"
    let cnonce = String(UInt32.random(in: 0...UInt32.max), radix: 16)
    let ha1 = Self.md5("\(user):receipt:\(password)")
    let ha2 = Self.md5("POST:\(uri)")
    let response = Self.md5("\(ha1):\(nonce):00000001:\(cnonce):auth:\(ha2)")
    return
      #"Digest username="\#(user)", realm="receipt", nonce="\#(nonce)", uri="\#(uri)", qop=auth, nc=00000001, cnonce="\#(cnonce)", response="\#(response)", algorithm=MD5"#
  }

  static func md5(_ text: String) -> String {
    Insecure.MD5.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
  }

  static func formEscaped(_ text: String) -> String {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._*")
    return (text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text)
  }

  static func fields(_ text: String) -> [String: String] {
    var result: [String: String] = [:]
    for match in text.matches(of: /([a-zA-Z]+)="([^"]*)"/) { result[String(match.output.1)] = String(match.output.2) }
    return result
  }

  private func send(_ body: String, authorization: String?) -> Answer? {
    var headers = ["Content-Type": "application/x-www-form-urlencoded"]
    if let authorization { headers["Authorization"] = authorization }
    do {
      let answer = try RawHTTP.exchange(port: Int(port), "POST", "/epson-sdp", headers: headers, body: Data(body.utf8))
      return Answer(status: answer.status, headers: answer.headers, body: answer.body)
    } catch {
      note("POST failed: \(error)")
      return nil
    }
  }

}
