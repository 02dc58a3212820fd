import HTTPTypes
import Hummingbird

/// DNS rebinding: a web page whose name an attacker points at 127.0.0.1 becomes "same origin"
/// with the daemon. The `Host` header still carries the attacker's name, so only names of this
/// daemon are accepted (421 otherwise): the listen address, the loopback names when it listens
/// on loopback or everywhere, IP literals when it listens everywhere (rebinding needs a name),
/// and the configured `hostNames`.
struct HostMiddleware<Context: RequestContext>: RouterMiddleware {
  let names: Set<String>
  let anyAddress: Bool

  init(configuration: ReceiptServer.Configuration) {
    names = configuration.acceptedHostNames
    anyAddress = configuration.listensEverywhere
  }

  /// The check of the IPP printers' listener: its own address and the same aliases. A web page
  /// in the shop's browser could otherwise print to (or probe) even a loopback-only listener.
  init(ipp: ReceiptServer.Configuration.IPPConfiguration, aliases: [String]) {
    names = ReceiptServer.Configuration.acceptedHostNames(listening: ipp.host, aliases: aliases)
    anyAddress = ["0.0.0.0", "::", "*"].contains(ipp.host)
  }

  func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
    -> Response
  {
    guard let authority = request.head.authority, let host = Self.hostName(authority) else {
      return Problem.badRequest("the request has no Host header").response
    }
    guard names.contains(host) || (anyAddress && Self.isIPLiteral(host)) else {
      return Problem(
        status: .misdirectedRequest, title: "Misdirected request",
        detail: "'\(host)' is not a name of this daemon; add it to hostNames in the daemon's configuration"
      ).response
    }
    return try await next(request, context)
  }

  /// The host of `host[:port]` or `[v6]:port`, lower-cased.
  static func hostName(_ authority: String) -> String? {
    if authority.hasPrefix("[") {
      guard let end = authority.firstIndex(of: "]") else { return nil }
      return String(authority[authority.index(after: authority.startIndex)..<end]).lowercased()
    }
    let host = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
    return host.isEmpty ? nil : host.lowercased()
  }

  static func isIPLiteral(_ host: String) -> Bool {
    let parts = host.split(separator: ".", omittingEmptySubsequences: false)
    if parts.count == 4, parts.allSatisfy({ UInt8($0) != nil }) { return true }
    return host.contains(":") && host.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." }
  }
}
