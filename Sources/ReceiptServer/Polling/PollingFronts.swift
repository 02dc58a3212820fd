import Foundation
import Hummingbird
import Logging

/// The servers printers that poll talk to, on the API's listener: Star CloudPRNT at
/// `/cloudprnt` (``CloudPRNTFront``) and Epson Server Direct Print at `/epson-sdp`
/// (``EpsonSDPFront``), each present when a printer of its kind is configured, sharing the
/// printers' state (``PolledPrinters``) and their authentication.
struct PollingFronts: Sendable {
  /// The paths, which the API's bearer tokens do not guard.
  static let paths: Set<String> = ["/" + CloudPRNTFront.path, "/" + EpsonSDPFront.path]
  let cloudPRNT: CloudPRNTFront
  let epsonSDP: EpsonSDPFront

  init(polled: PolledPrinters, store: any JobStore, logger: Logger) {
    let authentication = PrinterAuthentication()
    cloudPRNT = CloudPRNTFront(polled: polled, store: store, logger: logger, authentication: authentication)
    epsonSDP = EpsonSDPFront(polled: polled, store: store, logger: logger, authentication: authentication)
  }

  func add(to router: Router<BasicRequestContext>) {
    cloudPRNT.add(to: router)
    epsonSDP.add(to: router)
  }
}
