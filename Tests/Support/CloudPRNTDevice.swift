import Foundation

/// A Star CloudPRNT printer, simulated from Star's CloudPRNT Protocol Guide ("CloudPRNT HTTP
/// Method"): it `POST`s its status to the server's URL (`printerMAC`, `statusCode` as
/// `200 OK` URL-encoded, `printingInProgress`, the results of the `clientAction`s it was asked
/// for), and when told `jobReady` picks the first of the offered `mediaTypes` it supports,
/// `GET`s the job with `mac`, `type` and `token`, prints it on a ``ThermalPrinterSimulator``
/// (which reads Star raster from Star's command specification and refuses what it does not
/// know) and confirms it with `DELETE` and `code=200 OK` — or, told to, vanishes without
/// confirming. It sends HTTP Basic credentials, as the printer's "server authentication" does.
public final class CloudPRNTDevice: @unchecked Sendable {
  public let mac: String
  let credentials: String
  let port: UInt16
  /// The media types it takes, in its order of preference (mC-Print3's list).
  let supported: [String]
  /// Where it prints.
  public let printer: ThermalPrinterSimulator
  private let lock = NSLock()
  private var statusCode = "200 OK"
  private var vanishes = 0
  private var askedActions: [String] = []
  private var log: [String] = []
  private var fetched: [String] = []
  private var images: [Data] = []

  public init(
    mac: String, credentials: String, port: UInt16, printer: ThermalPrinterSimulator,
    supported: [String] = ["text/plain", "image/png", "application/vnd.star.starprnt", "application/octet-stream"]
  ) {
    self.mac = mac
    self.credentials = credentials
    self.port = port
    self.printer = printer
    self.supported = supported
  }

  /// Sets the `statusCode` its polls report (`410 Out of paper`, `420 Cover open`, `200 OK`).
  public func report(_ code: String) { lock.withLock { statusCode = code } }
  /// The next `count` jobs it fetches are never confirmed (the printer loses power).
  public func vanish(next count: Int) { lock.withLock { vanishes = count } }
  /// The PNG jobs it fetched (`image/png`), in order.
  public var pngs: [Data] { lock.withLock { images } }
  /// The tokens of the jobs it fetched, in order.
  public var fetchedTokens: [String] { lock.withLock { fetched } }
  /// What the server asked with `clientAction`.
  public var clientActions: [String] { lock.withLock { askedActions } }
  /// Errors it met (unexpected answers).
  public var errors: [String] { lock.withLock { log } }

  /// One poll, and the job it announces (fetched, printed, confirmed): the HTTP status of the poll.
  @discardableResult
  public func pollOnce(credentials override: String? = nil) -> Int {
    let (code, pendingActions) = lock.withLock { (statusCode, askedActions) }
    var body: [String: Any] = [
      "printerMAC": mac, "statusCode": code.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? code,
      "printingInProgress": false,
    ]
    if !pendingActions.isEmpty {
      body["clientAction"] = pendingActions.map { action -> [String: Any] in
        switch action {
        case "ClientType": ["request": action, "result": "Star mC-Print3"]
        case "ClientVersion": ["request": action, "result": "5.1"]
        case "GetPollInterval": ["request": action, "result": 1]
        default: ["request": action, "result": ""]
        }
      }
      lock.withLock { askedActions = [] }
    }
    guard let answer = request("POST", "", body: try? JSONSerialization.data(withJSONObject: body), override)
    else { return 0 }
    guard answer.status == 200 else { return answer.status }
    let json = (try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any]) ?? [:]
    if let actions = json["clientAction"] as? [[String: Any]] {
      lock.withLock { askedActions = actions.compactMap { $0["request"] as? String } }
    }
    guard json["jobReady"] as? Bool == true else { return 200 }
    let offered = json["mediaTypes"] as? [String] ?? []
    // Of the offered types (the server's order) the first it takes: Star leaves the choice to the
    // client and names no order; this one follows the server's.
    guard let type = offered.first(where: supported.contains) else {
      note("no offered media type is supported: \(offered)")
      return 200
    }
    let token = json["jobToken"] as? String
    var query = "mac=\(escaped(mac))&type=\(escaped(type))"
    if let token { query += "&token=\(escaped(token))" }
    guard let job = request("GET", query, body: nil, override), job.status == 200 else {
      note("job GET failed")
      return 200
    }
    lock.withLock { fetched.append(token ?? "") }
    let vanish = lock.withLock { () -> Bool in
      defer { vanishes = max(0, vanishes - 1) }
      return vanishes > 0
    }
    if vanish { return 200 }
    let isPNG = type == "image/png" && job.body.starts(with: [0x89, 0x50, 0x4E, 0x47])
    if isPNG { lock.withLock { images.append(job.body) } }
    let printed = isPNG || ((try? printer.replay(job.body)) != nil && printer.refusedCommands.isEmpty)
    let result = printed ? "200 OK" : "511 Media decoding error"
    var confirmation = "mac=\(escaped(mac))&code=\(escaped(result))"
    if let token { confirmation += "&token=\(escaped(token))" }
    _ = request("DELETE", confirmation, body: nil, override)
    return 200
  }

  /// Polls every `interval` seconds on a thread of its own until `stop` says so (bounded by `seconds`).
  public func run(every interval: TimeInterval, seconds: TimeInterval, stop: @escaping @Sendable () -> Bool) -> Thread {
    let end = Date().addingTimeInterval(seconds)
    let thread = Thread { [self] in
      while !stop(), Date() < end {
        pollOnce()
        Thread.sleep(forTimeInterval: interval)
      }
    }
    thread.start()
    return thread
  }

  private func escaped(_ text: String) -> String {
    text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
  }

  private func note(_ message: String) { lock.withLock { log.append(message) } }

  private struct Answer {
    var status: Int
    var body: Data
  }

  private func request(_ method: String, _ query: String, body: Data?, _ override: String?) -> Answer? {
    var headers = ["Authorization": "Basic " + Data((override ?? credentials).utf8).base64EncodedString()]
    if body != nil { headers["Content-Type"] = "application/json" }
    do {
      let answer = try RawHTTP.exchange(
        port: Int(port), method, "/cloudprnt" + (query.isEmpty ? "" : "?\(query)"), headers: headers,
        body: body ?? Data())
      return Answer(status: answer.status, body: answer.body)
    } catch {
      note("\(method) failed: \(error)")
      return nil
    }
  }

}
