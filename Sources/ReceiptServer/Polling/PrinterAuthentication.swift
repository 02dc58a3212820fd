import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// How a printer that polls proves it is the one configured: HTTP Basic (CloudPRNT's "server
/// authentication") or HTTP Digest (RFC 7616, MD5 with `qop=auth`: Epson Server Direct Print's
/// "Digest Access Authentication"), with the printer's `printerCredentials` (`USER:PASSWORD`).
/// Credentials and digests are compared in constant time; a Digest nonce is the time it was
/// made and its HMAC under a key of this process, good for five minutes.
struct PrinterAuthentication: Sendable {
  static let realm = "receipt"
  private let key = SymmetricKey(size: .bits256)
  /// Seconds a nonce is good for.
  static let nonceLifetime: TimeInterval = 300

  /// Whether `request` carries `credentials` (`USER:PASSWORD`) as Basic or as a valid Digest.
  func accepts(_ request: Request, credentials: String) -> Bool {
    guard let header = request.headers[.authorization] else { return false }
    let lower = header.lowercased()
    if lower.hasPrefix("basic ") { return Self.basicMatches(header, credentials) }
    if lower.hasPrefix("digest ") { return digestMatches(header, method: request.method.rawValue, credentials) }
    return false
  }

  /// A 401 that asks for either scheme.
  func challenge() -> Response {
    var headers: HTTPFields = [.contentType: "text/plain; charset=utf-8"]
    headers.append(HTTPField(name: .wwwAuthenticate, value: #"Basic realm="\#(Self.realm)""#))
    headers.append(
      HTTPField(
        name: .wwwAuthenticate,
        value: #"Digest realm="\#(Self.realm)", qop="auth", algorithm=MD5, nonce="\#(nonce(at: Date()))""#))
    return Response(
      status: .unauthorized, headers: headers,
      body: .init(
        byteBuffer: ByteBuffer(string: "a known printer and its credentials (printerCredentials) are needed\n")))
  }

  static func basicMatches(_ header: String, _ credentials: String) -> Bool {
    guard let decoded = Data(base64Encoded: String(header.dropFirst(6)).trimmingCharacters(in: .whitespaces)) else {
      return false
    }
    return equal(Data(SHA256.hash(data: decoded)), Data(SHA256.hash(data: Data(credentials.utf8))))
  }

  /// A nonce: seconds since 1970 and their HMAC.
  func nonce(at date: Date) -> String {
    let time = String(format: "%.0f", date.timeIntervalSince1970.rounded(.down))
    let mac = HMAC<SHA256>.authenticationCode(for: Data(time.utf8), using: key)
    return time + "." + Data(mac).base64EncodedString()
  }

  private func digestMatches(_ header: String, method: String, _ credentials: String) -> Bool {
    let fields = Self.digestFields(String(header.dropFirst(7)))
    guard let username = fields["username"], let nonce = fields["nonce"], let uri = fields["uri"],
      let response = fields["response"], fields["realm"] == Self.realm, fields["qop"] == "auth",
      let nc = fields["nc"], let cnonce = fields["cnonce"], (fields["algorithm"] ?? "MD5").uppercased() == "MD5"
    else { return false }
    // The nonce is one this process made, not older than its lifetime.
    let parts = nonce.split(separator: ".", maxSplits: 1).map(String.init)
    guard parts.count == 2, let seconds = Double(parts[0]),
      Date().timeIntervalSince1970 - seconds <= Self.nonceLifetime,
      self.nonce(at: Date(timeIntervalSince1970: seconds)) == nonce
    else { return false }
    let split = credentials.split(separator: ":", maxSplits: 1).map(String.init)
    guard split.count == 2, split[0] == username else { return false }
    let expected = Self.digestResponse(
      username: username, realm: Self.realm, password: split[1], method: method, uri: uri, nonce: nonce, nc: nc,
      cnonce: cnonce)
    return Self.equal(Data(expected.utf8), Data(response.lowercased().utf8))
  }

  /// RFC 7616's `response` for `qop=auth` with MD5: MD5(HA1:nonce:nc:cnonce:auth:HA2), HA1 =
  /// MD5(username:realm:password), HA2 = MD5(method:uri).
  static func digestResponse(
    username: String, realm: String, password: String, method: String, uri: String, nonce: String, nc: String,
    cnonce: String
  ) -> String {
    let ha1 = md5("\(username):\(realm):\(password)")
    let ha2 = md5("\(method):\(uri)")
    return md5("\(ha1):\(nonce):\(nc):\(cnonce):auth:\(ha2)")
  }

  /// `key="value", key=value` pairs of a Digest header.
  static func digestFields(_ text: String) -> [String: String] {
    var fields: [String: String] = [:]
    var rest = Substring(text)
    while !rest.isEmpty {
      rest = rest.drop { $0 == " " || $0 == "," }
      guard let equals = rest.firstIndex(of: "=") else { break }
      let name = rest[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
      rest = rest[rest.index(after: equals)...]
      let value: Substring
      if rest.first == "\"" {
        rest = rest.dropFirst()
        let end = rest.firstIndex(of: "\"") ?? rest.endIndex
        value = rest[..<end]
        rest = end < rest.endIndex ? rest[rest.index(after: end)...] : ""
      } else {
        let end = rest.firstIndex(of: ",") ?? rest.endIndex
        value = rest[..<end]
        rest = rest[end...]
      }
      fields[name] = value.trimmingCharacters(in: .whitespaces)
    }
    return fields
  }

  static func md5(_ text: String) -> String {
    Insecure.MD5.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
  }

  static func equal(_ a: Data, _ b: Data) -> Bool {
    a.count == b.count && zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
  }
}
