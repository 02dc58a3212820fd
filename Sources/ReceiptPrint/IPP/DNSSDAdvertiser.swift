internal import CAvahi
import Foundation
@_spi(Internals) import ReceiptModel

/// Advertises services over DNS-SD (multicast DNS) through Avahi, the Linux desktop's mDNS
/// responder: how phones, tablets and desktops find printers (AirPrint looks for `_ipp._tcp`
/// with the `_universal` subtype). Names that collide with another machine's get Avahi's next
/// alternative ("counter #2"). The advertisements end with ``stop()`` (or with the process).
public final class DNSSDAdvertiser: Sendable {
  /// One service: an instance name, its type and subtypes, port and TXT record.
  public struct Service: Sendable, Equatable {
    public var name: String
    /// `_ipp._tcp`.
    public var type: String
    /// `_universal`, `_print`: registered as `_universal._sub._ipp._tcp`.
    public var subtypes: [String]
    public var port: Int
    /// TXT keys and values, in order.
    public var txt: [(key: String, value: String)]

    /// Creates a service.
    public init(name: String, type: String, subtypes: [String], port: Int, txt: [(key: String, value: String)]) {
      self.name = name
      self.type = type
      self.subtypes = subtypes
      self.port = port
      self.txt = txt
    }

    /// Creates a service with TXT keys written as a literal.
    public init(name: String, type: String, subtypes: [String], port: Int, txt: KeyValuePairs<String, String>) {
      self.init(name: name, type: type, subtypes: subtypes, port: port, txt: txt.map { ($0.key, $0.value) })
    }

    public static func == (a: Service, b: Service) -> Bool {
      a.name == b.name && a.type == b.type && a.subtypes == b.subtypes && a.port == b.port
        && a.txt.map { "\($0.key)=\($0.value)" } == b.txt.map { "\($0.key)=\($0.value)" }
    }
  }

  private let state: Locked<State>
  /// The names the services have now (after collisions), for messages.
  public var names: [String] { state.withLock { $0.services.map(\.name) } }

  private struct State: @unchecked Sendable {  // Avahi's objects, used only under its poll lock
    var poll: OpaquePointer?
    var client: OpaquePointer?
    var group: OpaquePointer?
    var services: [Service]
    var problem: String?
  }

  /// Connects to avahi-daemon and registers `services`; throws when Avahi cannot be used (not
  /// installed, avahi-daemon or D-Bus not running).
  public init(services: [Service]) throws {
    state = Locked(State(services: services))
    guard receipt_avahi_library_error() == nil, let newPoll = receipt_avahi_threaded_poll_new(),
      let poll = newPoll()
    else {
      let why = receipt_avahi_library_error().map { String(cString: $0) } ?? "cannot start Avahi's event thread"
      throw PrintError.libraryMissing("DNS-SD needs Avahi (\(why)); install avahi-daemon and libavahi-client3")
    }
    var error: Int32 = 0
    let me = Unmanaged.passUnretained(self).toOpaque()
    let client = receipt_avahi_client_new()?(
      receipt_avahi_threaded_poll_get()?(poll), AvahiClientFlags(rawValue: 0),
      { client, clientState, me in
        guard let me, let client else { return }
        Unmanaged<DNSSDAdvertiser>.fromOpaque(me).takeUnretainedValue().changed(client, clientState)
      }, me, &error)
    guard let client else {
      receipt_avahi_threaded_poll_free()?(poll)
      throw PrintError.libraryMissing(
        "DNS-SD: cannot reach avahi-daemon (\(Self.message(error))); start it (systemctl start avahi-daemon)")
    }
    state.withLock {
      $0.poll = poll
      $0.client = client
    }
    // The client's first state (running) was reported during avahi_client_new, before the poll
    // thread runs; register now under the poll's lock.
    _ = receipt_avahi_threaded_poll_start()?(poll)
    receipt_avahi_threaded_poll_lock()?(poll)
    register(client)
    receipt_avahi_threaded_poll_unlock()?(poll)
    if let problem = state.withLock({ $0.problem }) {
      stop()
      throw PrintError.libraryMissing("DNS-SD: \(problem)")
    }
  }

  /// Withdraws the services and disconnects from Avahi.
  public func stop() {
    let (poll, client) = state.withLock { state -> (OpaquePointer?, OpaquePointer?) in
      defer { (state.poll, state.client, state.group) = (nil, nil, nil) }
      return (state.poll, state.client)
    }
    guard let poll else { return }
    receipt_avahi_threaded_poll_stop()?(poll)
    if let client { receipt_avahi_client_free()?(client) }  // frees its entry groups too
    receipt_avahi_threaded_poll_free()?(poll)
  }

  deinit { stop() }

  /// The client's state changed (on Avahi's thread, with its lock held).
  private func changed(_ client: OpaquePointer, _ clientState: AvahiClientState) {
    switch clientState {
    case AVAHI_CLIENT_S_RUNNING:
      if state.withLock({ $0.client }) != nil { register(client) }
    case AVAHI_CLIENT_S_COLLISION, AVAHI_CLIENT_S_REGISTERING:
      if let group = state.withLock({ $0.group }) { _ = receipt_avahi_entry_group_reset()?(group) }
    default:
      break
    }
  }

  /// Adds every service (with its subtypes) to an entry group and commits it.
  private func register(_ client: OpaquePointer) {
    var group = state.withLock { $0.group }
    if group == nil {
      let me = Unmanaged.passUnretained(self).toOpaque()
      group = receipt_avahi_entry_group_new()?(
        client,
        { group, groupState, me in
          guard let me, let group, groupState == AVAHI_ENTRY_GROUP_COLLISION else { return }
          Unmanaged<DNSSDAdvertiser>.fromOpaque(me).takeUnretainedValue().collided(group)
        }, me)
      state.withLock { $0.group = group }
    }
    guard let group else {
      fail("cannot create an entry group (\(Self.message(receipt_avahi_client_errno()?(client) ?? 0)))")
      return
    }
    _ = receipt_avahi_entry_group_reset()?(group)
    for service in state.withLock({ $0.services }) {
      var list: UnsafeMutablePointer<AvahiStringList>?
      for (key, value) in service.txt { list = receipt_avahi_string_list_add()?(list, "\(key)=\(value)") }
      defer { receipt_avahi_string_list_free()?(list) }
      var status =
        receipt_avahi_entry_group_add_service_strlst()?(
          group, AvahiIfIndex(AVAHI_IF_UNSPEC), AvahiProtocol(AVAHI_PROTO_UNSPEC), AvahiPublishFlags(rawValue: 0),
          service.name, service.type, nil,
          nil, UInt16(service.port), list) ?? -1
      for subtype in service.subtypes where status >= 0 {
        status =
          receipt_avahi_entry_group_add_service_subtype()?(
            group, AvahiIfIndex(AVAHI_IF_UNSPEC), AvahiProtocol(AVAHI_PROTO_UNSPEC), AvahiPublishFlags(rawValue: 0),
            service.name, service.type,
            nil, "\(subtype)._sub.\(service.type)") ?? -1
      }
      if status == Int32(AVAHI_ERR_COLLISION) {
        rename(service.name)
        register(client)
        return
      }
      guard status >= 0 else {
        fail("cannot advertise \(service.name) (\(Self.message(status)))")
        return
      }
    }
    let committed = receipt_avahi_entry_group_commit()?(group) ?? -1
    if committed < 0 { fail("cannot commit the advertisements (\(Self.message(committed)))") }
  }

  /// Another machine has a service of that name: take Avahi's alternative for every name.
  private func collided(_ group: OpaquePointer) {
    for name in state.withLock({ $0.services.map(\.name) }) { rename(name) }
    if let client = state.withLock({ $0.client }) { register(client) }
  }

  private func rename(_ name: String) {
    guard let alternative = receipt_avahi_alternative_service_name()?(name) else { return }
    defer { receipt_avahi_free()?(alternative) }
    let new = String(cString: alternative)
    state.withLock { state in
      for i in state.services.indices where state.services[i].name == name { state.services[i].name = new }
    }
  }

  private func fail(_ problem: String) { state.withLock { $0.problem = $0.problem ?? problem } }

  private static func message(_ error: Int32) -> String {
    receipt_avahi_strerror()?(error).map { String(cString: $0) } ?? "error \(error)"
  }
}
