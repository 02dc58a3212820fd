import Foundation

/// Where a listener binds and how its address is written in a URI.
package enum ListenAddress {
  /// The address to bind for a configured host: every address (`0.0.0.0`, `::`, `*`) is both
  /// IPv4 and IPv6 — `::` with IPv4-mapped addresses, Linux's default (`bindv6only` 0) — when
  /// the machine has IPv6, so a phone that resolves the printer's advertised IPv6 address
  /// reaches it; `0.0.0.0` without IPv6. Any other host is bound as given.
  static func bindHost(_ host: String) -> String {
    guard ["0.0.0.0", "::", "*"].contains(host) else { return host }
    return ipv6Available ? "::" : "0.0.0.0"
  }

  /// Whether an IPv6 socket can be bound on this machine (a kernel with IPv6 turned off cannot).
  static let ipv6Available: Bool = {
    let fd = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var address = sockaddr_in6()
    address.sin6_family = sa_family_t(AF_INET6)
    address.sin6_addr = in6addr_any
    return withUnsafePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) == 0
      }
    }
  }()

  /// `host` as a URI's authority writes it: an IPv6 literal in brackets (RFC 3986 3.2.2).
  package static func uriHost(_ host: String) -> String {
    host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
  }
}
