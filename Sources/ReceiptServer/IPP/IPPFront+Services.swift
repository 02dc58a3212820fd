import Foundation
import Logging
import ReceiptKit
import ServiceLifecycle

extension IPPFront {
  /// The IPP front's background services: jobs created without a document are failed after
  /// ``ippHeldTimeout`` (IPP `multiple-operation-time-out-action` abort-job), a self-made TLS
  /// certificate is renewed when due, and the printers are advertised over DNS-SD once the
  /// listener has its port.
  func services(advertising: IPPAdvertising?) -> [any Service] {
    guard configuration.ipp != nil else { return [] }
    var services: [any Service] = [
      PeriodicService(description: "IPP's held-job sweeper", interval: .seconds(10)) { [self] in
        _ = await abandonLateHeldJobs()
      }
    ]
    if security.mode != .off {
      // A self-made certificate is made anew 30 days before it ends, without a restart.
      services.append(
        PeriodicService(description: "IPP's certificate renewal", interval: .seconds(86_400)) { [security, logger] in
          _ = security.renewIfDue(logger: logger)
        })
    }
    if let advertising { services.append(advertising) }
    return services
  }

  /// Fails the held jobs (Create-Job) whose document has not come within ``ippHeldTimeout`` of
  /// `now`, oldest first, all of them (500 at a time); returns how many.
  func abandonLateHeldJobs(now: Date = Date()) async -> Int {
    let limit = now.addingTimeInterval(-TimeInterval(Self.heldTimeout))
    let reason = "no document arrived within \(Self.heldTimeout) s of Create-Job"
    var count = 0
    while let late = try? await store.sweepable(.heldSince(limit), limit: 500), !late.isEmpty {
      var progressed = false
      for job in late {
        guard let abandoned = try? await store.abandon(job.id, reason: reason, now: now), abandoned.state != .held
        else { continue }
        progressed = true
        count += 1
        logger.info("job \(job.id): \(reason); failed")
      }
      if !progressed { break }  // the store cannot write: the next pass tries again
    }
    return count
  }

  /// The DNS-SD advertisement of every printer (`_ipp._tcp`, subtypes `_universal` for AirPrint
  /// and `_print` for IPP Everywhere) with the TXT keys clients read, and its name held under
  /// `_printer._tcp` with port 0 — the LPD service type, which the printers do not offer: the
  /// Bonjour Printing Specification has a printer without LPD reserve its name there so that no
  /// other printer takes it (as PAPPL and CUPS do).
  func advertisements(port: Int) -> [DNSSDAdvertiser.Service] {
    let host = Self.hostName
    return printers.values.sorted { $0.name < $1.name }.flatMap { printer in
      var services = [ippAdvertisement(printer, port: port, host: host, secure: false)]
      // `ipps://` on the same port: the same keys, an https page.
      if security.mode != .off { services.append(ippAdvertisement(printer, port: port, host: host, secure: true)) }
      services.append(
        DNSSDAdvertiser.Service(name: printer.dnsSDName, type: "_printer._tcp", subtypes: [], port: 0, txt: [:]))
      return services
    }
  }

  /// `product`: the model in parentheses, as a PPD's `*Product` string; parentheses of the model's
  /// own title ("Generic 80 mm ESC/POS printer (203 dpi)") would nest, and a client that reads up
  /// to the first `)` would get half of it — they become a comma.
  static func productKey(_ title: String) -> String {
    let flat = title.replacingOccurrences(of: " (", with: ", ").filter { $0 != "(" && $0 != ")" }
    return "(\(flat))"
  }

  private func ippAdvertisement(_ printer: IPPPrinter, port: Int, host: String, secure: Bool)
    -> DNSSDAdvertiser.Service
  {
    let pdl = IPPPrinter.formats.filter { $0 != "application/octet-stream" }.joined(separator: ",")
    let uuid = String(printer.uuid.dropFirst("urn:uuid:".count))
    let page = "\(secure ? "https" : "http")://\(host).local:\(port)/ipp/print/\(printer.name)"
    var txt: [(key: String, value: String)] = [
      ("txtvers", "1"), ("qtotal", "1"), ("rp", "ipp/print/\(printer.name)"), ("ty", printer.makeAndModel),
      ("adminurl", page), ("note", ""), ("priority", "0"),
      ("product", Self.productKey(printer.config.model?.title ?? "Receipt printer")), ("pdl", pdl), ("UUID", uuid),
      ("URF", "V1.4,CP99,W8,SRGB24,IS1,MT1,OB9,PQ3-4-5,RS\(printer.dpi)"), ("Color", "F"), ("Duplex", "F"),
      ("kind", "receipt,roll"), ("PaperMax", "<legal-A4"), ("Fax", "F"), ("Scan", "F"),
    ]
    // TLS (its least version) in both: `_ipp._tcp` upgrades to it (RFC 2817), `_ipps._tcp` starts
    // with it — PWG's DNS-SD tests look for the key under `_ipp._tcp`.
    if security.mode != .off { txt.append(("TLS", "1.2")) }
    return DNSSDAdvertiser.Service(
      name: printer.dnsSDName, type: secure ? "_ipps._tcp" : "_ipp._tcp", subtypes: ["_universal", "_print"],
      port: port, txt: txt)
  }
}

/// Advertises the IPP printers over DNS-SD while the daemon runs: registers once the IPP
/// listener reports its port, withdraws at shutdown. Without Avahi the printers still answer
/// IPP (clients then need their URI); the daemon says so once.
final class IPPAdvertising: Service, Sendable {
  private let ready = AsyncStream<Int>.makeStream()
  private let services: @Sendable (Int) -> [DNSSDAdvertiser.Service]
  private let logger: Logger

  init(logger: Logger, services: @escaping @Sendable (Int) -> [DNSSDAdvertiser.Service]) {
    self.logger = logger
    self.services = services
  }

  /// The IPP listener's port, once it listens.
  func listening(on port: Int) {
    ready.continuation.yield(port)
    ready.continuation.finish()
  }

  func run() async throws {
    let port: Int? = await cancelWhenGracefulShutdown {
      for await bound in self.ready.stream { return bound }
      return nil
    }
    var advertiser: DNSSDAdvertiser?
    if let port, !Task.isShuttingDownGracefully {
      do {
        advertiser = try DNSSDAdvertiser(services: services(port))
        logger.info("advertising over DNS-SD: \(advertiser?.names.joined(separator: ", ") ?? "")")
      } catch {
        logger.warning("the IPP printers are not advertised: \(error)")
      }
    }
    // A service of the group runs until the group stops, advertising or not.
    try? await gracefulShutdown()
    advertiser?.stop()
  }
}
